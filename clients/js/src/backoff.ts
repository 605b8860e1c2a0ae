/** First retry waits up to this long; each further one doubles it, up to BACKOFF_CAP_MS. */
export const BACKOFF_BASE_MS = 100;
export const BACKOFF_CAP_MS = 2000;

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(cap, base * 2^(retry - 1))), so clients that
 * failed together do not come back together.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
}

/** A `Retry-After` header in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
