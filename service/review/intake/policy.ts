import type { Queued } from '../../../core/classifier/shadow-store.ts';
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

/** Why a verdict goes to review and the chance it had of going (the sample rate for a sampled one, else 1), or undefined. */
export function reviewDecision(job: ReviewJob, policy: ReviewPolicy, random: () => number = Math.random): Queued | undefined {
  const reason = reviewReason(job, policy, random);
  if (reason === undefined) return undefined;
  return { reason, probability: reason === 'sample' ? policy.sampleRate : 1 };
}
