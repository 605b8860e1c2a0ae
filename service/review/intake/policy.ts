import { isDisagreement, type ReviewJob } from './job-schema.ts';

export interface ReviewPolicy {
  /** Legitimate verdicts with confidence under this go to review. */
  readonly band: number;
  /** Share of the remaining (confident legitimate) verdicts sampled for review. */
  readonly sampleRate: number;
}

export type ReviewReason = 'disagreement' | 'spam' | 'low-confidence' | 'sample';

/** Why a verdict goes to review, or undefined when it does not. */
export function reviewReason(job: ReviewJob, policy: ReviewPolicy, random: () => number = Math.random): ReviewReason | undefined {
  if (isDisagreement(job)) return 'disagreement';
  if (job.verdict.status === 'spam') return 'spam';
  if (job.verdict.confidence < policy.band) return 'low-confidence';
  if (policy.sampleRate > 0 && random() < policy.sampleRate) return 'sample';
  return undefined;
}
