import type { Failure, FailureReason } from './result.js';

/** Thrown instead of returning `failed-open` when the client was built with `failOpen: false`. */
export class FormguardUnavailableError extends Error implements Failure {
  override readonly name = 'FormguardUnavailableError';
  readonly reason: FailureReason;
  readonly status?: number;
  readonly body?: unknown;
  readonly submissionId?: string;
  readonly attempts: number;
  readonly elapsedMs: number;

  constructor(failure: Failure) {
    super(failure.message);
    this.reason = failure.reason;
    this.attempts = failure.attempts;
    this.elapsedMs = failure.elapsedMs;
    if (failure.status !== undefined) this.status = failure.status;
    if (failure.body !== undefined) this.body = failure.body;
    if (failure.submissionId !== undefined) this.submissionId = failure.submissionId;
  }
}
