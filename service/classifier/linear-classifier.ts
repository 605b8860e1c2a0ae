import type { FeatureExtractor } from '../features/index.ts';
import type { LinearScorer } from './linear-scorer.ts';
import type { Manifest } from './manifest.ts';
import { explain, sentence } from './reasoning.ts';
import type { Classifier, FormFields, Verdict } from './types.ts';

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Featurize, score, calibrate, decide, explain: synchronous and allocation-light. */
export class LinearClassifier implements Classifier {
  readonly modelVersion: string;
  readonly featureVersion: string;
  private readonly contributions: Float64Array;

  constructor(
    readonly manifest: Manifest,
    private readonly extractor: FeatureExtractor,
    readonly scorer: LinearScorer,
  ) {
    this.modelVersion = manifest.version;
    this.featureVersion = manifest.featureVersion;
    this.contributions = new Float64Array(extractor.dimension);
  }

  /** Calibrated spam probability, without reasoning (evaluation and benchmarks). */
  spamProbability(fields: FormFields): number {
    const { a, b } = this.manifest.calibration;
    return sigmoid(a * this.scorer.logit(this.extractor.extract(fields)) + b);
  }

  classify(fields: FormFields): Verdict {
    const f = this.extractor.extract(fields);
    const { a, b } = this.manifest.calibration;
    // Contributions in calibrated log-odds, so they add up to what the caller's confidence reflects.
    const spamProbability = sigmoid(a * this.scorer.logitWithContributions(f, this.contributions, a) + b);
    const status = spamProbability >= this.manifest.threshold ? 'spam' : 'legitimate';
    const confidence = status === 'spam' ? spamProbability : 1 - spamProbability;
    const signals = explain(f, this.contributions, status);
    return {
      status,
      spamProbability,
      confidence,
      signals,
      reasoning: sentence(status, confidence, signals),
      modelVersion: this.modelVersion,
    };
  }
}
