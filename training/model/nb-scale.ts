import type { TrainingExample } from './train-linear.ts';

/** Naive-Bayes feature scaling (Wang & Manning's NB-LR): smoothing and how much of every feature's scale is kept. */
export interface NbScaling {
  /** Add-alpha smoothing of the per-class feature counts. */
  readonly alpha: number;
  /** Each feature's scale is mix + (1 - mix) * |log-count ratio|: 1 turns the scaling off. */
  readonly mix: number;
}

/**
 * Per-bucket scales from how unevenly a feature occurs in spam and in legitimate training examples (weighted
 * presence, add-alpha smoothed). Training on x * r and shipping w * r gives the same linear model form, so the
 * service scores it unchanged; what changes is which features the optimizer moves first and furthest.
 */
export function nbScales(examples: readonly TrainingExample[], dimension: number, opts: NbScaling): Float32Array {
  const spam = new Float64Array(dimension).fill(opts.alpha);
  const ham = new Float64Array(dimension).fill(opts.alpha);
  for (const e of examples) {
    const counts = e.label === 1 ? spam : ham;
    for (let i = 0; i < e.indices.length; i++) if ((e.values[i] as number) > 0) counts[e.indices[i] as number]! += e.weight;
  }
  let spamTotal = 0;
  let hamTotal = 0;
  for (let i = 0; i < dimension; i++) {
    spamTotal += spam[i] as number;
    hamTotal += ham[i] as number;
  }
  const scales = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) {
    const ratio = Math.log((spam[i] as number) / spamTotal) - Math.log((ham[i] as number) / hamTotal);
    scales[i] = opts.mix + (1 - opts.mix) * Math.abs(ratio);
  }
  return scales;
}

/** The examples with every value multiplied by its bucket's scale (copies; the inputs are left as they were). */
export function scaleExamples(examples: readonly TrainingExample[], scales: Float32Array): TrainingExample[] {
  return examples.map((e) => {
    const values = new Float32Array(e.values.length);
    for (let i = 0; i < values.length; i++) values[i] = (e.values[i] as number) * (scales[e.indices[i] as number] as number);
    return { ...e, values };
  });
}

/** Weights for unscaled input: w * r, the model the service loads. */
export function foldScales(weights: Float32Array, scales: Float32Array): Float32Array {
  const out = new Float32Array(weights.length);
  for (let i = 0; i < weights.length; i++) out[i] = (weights[i] as number) * (scales[i] as number);
  return out;
}
