import type { RateRule } from './types.ts';

/**
 * Window arithmetic shared by the in-memory and Redis limiters (the Redis Lua script repeats only `weight`).
 * Sliding windows use the two-counter approximation: the previous window's count weighs by how much of it
 * still overlaps the last windowMs.
 */
export function weight(rule: RateRule, prev: number, curr: number, elapsedMs: number): number {
  return rule.algorithm === 'fixed' ? curr : (prev * (rule.windowMs - elapsedMs)) / rule.windowMs + curr;
}

export function isAllowed(rule: RateRule, prev: number, curr: number, elapsedMs: number): boolean {
  return weight(rule, prev, curr, elapsedMs) + 1 <= rule.max;
}

/** Whole seconds until one more hit would be allowed (≥ 1), given the counts that caused a rejection. */
export function retryAfterSeconds(rule: RateRule, prev: number, curr: number, elapsedMs: number): number {
  const w = rule.windowMs;
  const toWindowEnd = w - elapsedMs;
  let waitMs: number;
  if (rule.algorithm === 'fixed') waitMs = toWindowEnd;
  else if (curr + 1 <= rule.max) waitMs = Math.max(0, toWindowEnd - ((rule.max - 1 - curr) * w) / prev);
  // The current window alone is full: wait for it to become "previous" and fade enough.
  else waitMs = toWindowEnd + Math.max(0, w - ((rule.max - 1) * w) / curr);
  return Math.max(1, Math.ceil(waitMs / 1000));
}
