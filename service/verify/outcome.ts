import type { Verdict } from '../../core/classifier/types.ts';

/** Every way a verify request can end; one mapper turns each into the spec's status and body. */
export type VerifyOutcome =
  | { readonly kind: 'verdict'; readonly verdict: Verdict; readonly submissionId: string }
  | { readonly kind: 'invalid-key' }
  | { readonly kind: 'key-guessing'; readonly retryAfterSeconds: number }
  | { readonly kind: 'form-not-found'; readonly formId: string }
  | { readonly kind: 'blocked'; readonly reason: string }
  | { readonly kind: 'rate-limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'not-ready'; readonly submissionId: string };

/** Metric and log label of an answer, including the ones the error handler produces. */
export type OutcomeLabel =
  | 'spam'
  | 'legitimate'
  | 'invalid-params'
  | 'invalid-key'
  | 'key-guessing'
  | 'form-not-found'
  | 'blocked'
  | 'rate-limited'
  | 'too-large'
  | 'unsupported-media-type'
  | 'not-ready'
  | 'overloaded'
  | 'error';
