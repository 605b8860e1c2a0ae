import type { FeatureExtractor } from '../features/index.ts';
import type { LinearScorer } from './linear-scorer.ts';
import type { Manifest } from './manifest.ts';
import { Attribution } from './attribution.ts';
import { sigmoid } from './sigmoid.ts';
import { counterSignal, explain, sentence, withAccountSignal } from './reasoning.ts';
import type { AccountCorrections } from './account-corrections.ts';
import type { FormFields } from '../features/form-fields.ts';
import type { Classifier, Score, Verdict } from './types.ts';

/** Featurize, score, calibrate, decide, explain: synchronous and allocation-light. */
export class LinearClassifier implements Classifier {
  readonly modelVersion: string;
  readonly featureVersion: string;
  private readonly attribution = new Attribution();

  constructor(
    readonly manifest: Manifest,
    private readonly extractor: FeatureExtractor,
    readonly scorer: LinearScorer,
    /** Per-account corrections shipped with the model (accounts.json); none for a model without them. */
    readonly corrections?: AccountCorrections,
  ) {
    this.modelVersion = manifest.version;
    this.featureVersion = manifest.featureVersion;
  }

  /** Calibrated spam probability, without reasoning (evaluation and benchmarks); with the account's correction if it has one. */
  spamProbability(fields: FormFields, accountId?: string): number {
    const { a, b } = this.manifest.calibration;
    const f = this.extractor.extract(fields);
    const correction = accountId === undefined ? undefined : this.corrections?.get(accountId);
    return sigmoid(a * this.scorer.logit(f) + b + (correction ? correction.logit(f) : 0));
  }

  score(fields: FormFields, accountId?: string): Score {
    const spamProbability = this.spamProbability(fields, accountId);
    const status = spamProbability >= this.manifest.threshold ? 'spam' : 'legitimate';
    return {
      status,
      spamProbability,
      confidence: status === 'spam' ? spamProbability : 1 - spamProbability,
      modelVersion: this.modelVersion,
    };
  }

  classify(fields: FormFields, accountId?: string): Verdict {
    const f = this.extractor.extract(fields);
    const { a, b } = this.manifest.calibration;
    // Contributions in calibrated log-odds, so they add up to what the caller's confidence reflects.
    const global = a * this.attribution.run(this.scorer, f, a) + b;
    // Only this account's own correction, looked up by the account the caller's key belongs to.
    const correction = accountId === undefined ? undefined : this.corrections?.get(accountId);
    const adjustment = correction ? correction.logit(f) : 0;
    const spamProbability = sigmoid(global + adjustment);
    const status = spamProbability >= this.manifest.threshold ? 'spam' : 'legitimate';
    const confidence = status === 'spam' ? spamProbability : 1 - spamProbability;
    let signals = explain(f, this.attribution, status);
    if (correction) {
      const globalStatus = sigmoid(global) >= this.manifest.threshold ? 'spam' : 'legitimate';
      const shift = correction.thresholdShift;
      // Legitimate only because the account's threshold is above the model's: at the model's it would be spam.
      const thresholdDecided = shift > 0 && status === 'legitimate' && sigmoid(global + adjustment + shift) >= this.manifest.threshold;
      signals = withAccountSignal(signals, status, adjustment, correction.bias - shift, globalStatus !== status, thresholdDecided);
    }
    const against = signals.length === 0 ? counterSignal(f, this.attribution, status) : null;
    return {
      status,
      spamProbability,
      confidence,
      signals,
      reasoning: sentence(status, confidence, signals, against),
      modelVersion: this.modelVersion,
      contacts: { sender: f.facts.senderAddress, linkHosts: f.facts.seenHosts },
    };
  }
}
