import type { FeatureExtractor } from '../features/index.ts';
import type { LinearScorer } from './linear-scorer.ts';
import type { Manifest } from './manifest.ts';
import { Attribution } from './attribution.ts';
import { counterSignal, explain, sentence } from './reasoning.ts';
import type { FormFields } from '../features/form-fields.ts';
import type { Classifier, Verdict } from './types.ts';

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Featurize, score, calibrate, decide, explain: synchronous and allocation-light. */
export class LinearClassifier implements Classifier {
  readonly modelVersion: string;
  readonly featureVersion: string;
  private readonly attribution = new Attribution();

  constructor(
    readonly manifest: Manifest,
    private readonly extractor: FeatureExtractor,
    readonly scorer: LinearScorer,
  ) {
    this.modelVersion = manifest.version;
    this.featureVersion = manifest.featureVersion;
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
    const spamProbability = sigmoid(a * this.attribution.run(this.scorer, f, a) + b);
    const status = spamProbability >= this.manifest.threshold ? 'spam' : 'legitimate';
    const confidence = status === 'spam' ? spamProbability : 1 - spamProbability;
    const signals = explain(f, this.attribution, status);
    const against = signals.length === 0 ? counterSignal(f, this.attribution, status) : null;
    return {
      status,
      spamProbability,
      confidence,
      signals,
      reasoning: sentence(status, confidence, signals, against),
      modelVersion: this.modelVersion,
    };
  }
}
