/** What the service answers with a verdict (HTTP 200), as the contract gives it plus the service's own extras. */
export interface Verdict {
  readonly status: 'spam' | 'legitimate';
  /** Calibrated probability (0 to 1) that `status` is right. */
  readonly confidence: number;
  /** One sentence naming what drove the decision. */
  readonly reasoning: string;
  /** UUID v4 of this submission: store it for support. */
  readonly submissionId: string;
  /** Milliseconds the service spent, network excluded. */
  readonly processingTime: number;
  readonly formId?: string;
  readonly modelVersion?: string;
}

/** The contract's referrer-blocked body (HTTP 403): the request's origin is not on the form's list. */
export interface BlockedBody {
  readonly success: false;
  readonly classification: 'blocked';
  readonly confidence: number;
  /** The service's message, naming the host it saw. */
  readonly reason: string;
  readonly processingTime: number;
}

/** Why the service gave no verdict. */
export type FailureReason =
  /** No connection, or it broke (DNS, refused, reset, CORS refused in a browser). */
  | 'unreachable'
  /** No whole answer within the attempt's time (`timeoutMs`, or what was left of `deadlineMs`). */
  | 'timeout'
  /** 5xx on every attempt that fitted the deadline. */
  | 'server-error'
  /** 429, and waiting as long as `Retry-After` asks would pass the deadline. */
  | 'rate-limited'
  /** Another 4xx: invalid key, unknown form, bad request. Never retried; usually a configuration mistake. */
  | 'rejected'
  /** An answer that is not one of the contract's (not JSON, or not a verdict's shape). */
  | 'bad-response';

export interface Failure {
  readonly reason: FailureReason;
  /** HTTP status of the last answer; absent when none came. */
  readonly status?: number;
  /** The last answer's body, parsed as JSON; its text when it was not JSON; absent when none came. */
  readonly body?: unknown;
  /** The `submissionId` of a 500 or 503 body, for support. */
  readonly submissionId?: string;
  /** Requests sent, retries included. */
  readonly attempts: number;
  /** Time the whole call took, in ms. */
  readonly elapsedMs: number;
  /** One line for a log; never holds the API key or the submitted fields. */
  readonly message: string;
}

export type SpamResult = Verdict & { readonly outcome: 'spam'; readonly allow: false };
export type LegitimateResult = Verdict & { readonly outcome: 'legitimate'; readonly allow: true };
export type BlockedResult = BlockedBody & { readonly outcome: 'blocked'; readonly allow: false };
export type FailedOpenResult = Failure & { readonly outcome: 'failed-open'; readonly allow: true };

/**
 * One verify call's result. `allow` is what the contract recommends: process `legitimate` posts, and let posts
 * through when the service gave no verdict (`failed-open`); hold or drop `spam`; `blocked` means this origin may
 * not use the form.
 */
export type VerifyResult = SpamResult | LegitimateResult | BlockedResult | FailedOpenResult;
