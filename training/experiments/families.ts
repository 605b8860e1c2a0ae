import { LinearScorer } from '../../core/classifier/linear-scorer.ts';
import { dequantize, quantizeUint8 } from '../../core/classifier/hashed-weights.ts';
import { foldScales, nbScales, scaleExamples, type NbScaling } from '../model/nb-scale.ts';
import { trainLinear, type TrainingExample } from '../model/train-linear.ts';
import { mlpLogit, trainMlp, type MlpWeights } from '../model/train-mlp.ts';
import type { SparseExample } from '../model/linear-model.ts';

export interface TrainSettings {
  readonly dimension: number;
  readonly seed: number;
  readonly nb: NbScaling;
}

/** A trained model as the protocol needs it: a raw logit per input (calibration and threshold come after). */
export interface Logits {
  logit(x: SparseExample): number;
}

/** A model family the protocol can train from scratch on any pool of examples. */
export interface BaseFamily {
  readonly name: string;
  readonly describe: string;
  train(examples: readonly TrainingExample[], s: TrainSettings): Logits;
}

/** The shipped setup: NB-LR, 12 epochs, batch 64, Adam 0.02, L2 1e-7, weights quantized to uint8 as shipped. */
export const NBLR: BaseFamily = {
  name: 'nblr',
  describe: 'NB-LR (shipped setup: 12 epochs, batch 64, Adam 0.02, L2 1e-7, uint8 weights)',
  train(examples, s) {
    const scales = nbScales(examples, s.dimension, s.nb);
    const trained = trainLinear(scaleExamples(examples, scales), {
      dimension: s.dimension,
      epochs: 12,
      batchSize: 64,
      learningRate: 0.02,
      l2: 1e-7,
      seed: s.seed,
    });
    return new LinearScorer(quantizeUint8(foldScales(trained.weights, scales)), 1, trained.bias);
  },
};

export interface MlpSettings {
  readonly hidden: number;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly l2: number;
  /** Train on NB-scaled inputs (the scales folded into the rows afterwards, as for NB-LR). */
  readonly nbScaled: boolean;
}

export const DEFAULT_MLP: MlpSettings = { hidden: 8, epochs: 6, batchSize: 64, learningRate: 0.005, l2: 1e-7, nbScaled: true };

/** The MLP's rows with the NB scales folded in: (x * r) . E == x . (r E), exactly, since it is before the ReLU. */
export function foldRowScales(m: MlpWeights, scales: Float32Array): MlpWeights {
  const H = m.hidden;
  const embeddings = new Float32Array(m.embeddings.length);
  for (let i = 0; i < scales.length; i++)
    for (let c = 0; c < H; c++) embeddings[i * H + c] = (m.embeddings[i * H + c] as number) * (scales[i] as number);
  return { ...m, embeddings };
}

/** The MLP with its table quantized the way an export would store it (one uint8 scale for the whole table). */
export function quantizedMlp(m: MlpWeights): MlpWeights {
  return { ...m, embeddings: dequantize(quantizeUint8(m.embeddings)) };
}

export function mlpFamily(p: MlpSettings = DEFAULT_MLP, name = 'mlp'): BaseFamily {
  return {
    name,
    describe: `hashed MLP (${p.hidden} ReLU units${p.nbScaled ? ', NB-scaled inputs' : ''}, ${p.epochs} epochs, batch ${p.batchSize}, lazy Adam ${p.learningRate}, L2 ${p.l2}, uint8 table)`,
    train(examples, s) {
      const scales = p.nbScaled ? nbScales(examples, s.dimension, s.nb) : null;
      const input = scales ? scaleExamples(examples, scales) : examples;
      const trained = trainMlp(input, {
        dimension: s.dimension,
        hidden: p.hidden,
        epochs: p.epochs,
        batchSize: p.batchSize,
        learningRate: p.learningRate,
        l2: p.l2,
        seed: s.seed,
      });
      const m = quantizedMlp(scales ? foldRowScales(trained, scales) : trained);
      const acc = new Float64Array(m.hidden);
      return { logit: (x) => mlpLogit(m, x, acc) };
    },
  };
}

/** A family whose logit is computed from base families' logits (no training of its own). */
export interface DerivedFamily {
  readonly name: string;
  readonly describe: string;
  readonly from: readonly string[];
  combine(logits: readonly number[]): number;
}

export const ENSEMBLE: DerivedFamily = {
  name: 'ensemble',
  describe: 'the mean of the NB-LR and MLP logits (one calibration and threshold over the mean)',
  from: ['nblr', 'mlp'],
  combine: (z) => ((z[0] as number) + (z[1] as number)) / 2,
};
