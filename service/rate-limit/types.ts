export type RateAlgorithm = 'fixed' | 'sliding';

export interface RateRule {
  readonly max: number;
  readonly windowMs: number;
  readonly algorithm: RateAlgorithm;
}

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** Counts one hit for `key` under `rule` and says whether it was within the limit; rejected hits are not counted. */
export interface RateLimiter {
  hit(key: string, rule: RateRule): Promise<RateDecision>;
  close(): Promise<void>;
}

export const ALLOWED: RateDecision = Object.freeze({ allowed: true });
