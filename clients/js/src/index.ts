export { FormguardClient, type FormguardClientOptions, type VerifyRequest } from './client.js';
export { FormguardUnavailableError } from './errors.js';
export type { FetchLike } from './attempt.js';
export type {
  BlockedBody,
  BlockedResult,
  FailedOpenResult,
  Failure,
  FailureReason,
  LegitimateResult,
  SpamResult,
  Verdict,
  VerifyResult,
} from './result.js';
