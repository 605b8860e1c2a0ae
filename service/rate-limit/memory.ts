import { ALLOWED, type RateDecision, type RateLimiter, type RateRule } from './types.ts';
import { isAllowed, retryAfterSeconds } from './window.ts';

interface Counter {
  index: number;
  prev: number;
  curr: number;
  windowMs: number;
}

/** One-process limiter: the embedded default without REDIS_URL, and the Redis limiter's fallback. */
export class MemoryRateLimiter implements RateLimiter {
  readonly #counters = new Map<string, Counter>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: { now?: () => number; sweepEveryMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    // Keys of idle accounts and IPs would otherwise pile up forever.
    this.#sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 60_000).unref();
  }

  hit(key: string, rule: RateRule): Promise<RateDecision> {
    return Promise.resolve(this.hitNow(key, rule));
  }

  hitNow(key: string, rule: RateRule): RateDecision {
    const now = this.#now();
    const index = Math.floor(now / rule.windowMs);
    const elapsed = now - index * rule.windowMs;
    let c = this.#counters.get(key);
    if (c === undefined || c.windowMs !== rule.windowMs) {
      c = { index, prev: 0, curr: 0, windowMs: rule.windowMs };
      this.#counters.set(key, c);
    } else if (c.index !== index) {
      c.prev = c.index === index - 1 ? c.curr : 0;
      c.curr = 0;
      c.index = index;
    }
    if (!isAllowed(rule, c.prev, c.curr, elapsed)) {
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, c.prev, c.curr, elapsed) };
    }
    c.curr += 1;
    return ALLOWED;
  }

  /** Hits counted for `key` in window `index` (of `windowMs`): what Redis did not count while it could not. */
  counted(key: string, windowMs: number, index: number): number {
    const c = this.#counters.get(key);
    return c !== undefined && c.windowMs === windowMs && c.index === index ? c.curr : 0;
  }

  /** Forgets `key`'s counts (they were handed on to Redis). */
  forget(key: string): void {
    this.#counters.delete(key);
  }

  sweep(): void {
    const now = this.#now();
    for (const [key, c] of this.#counters) {
      if (Math.floor(now / c.windowMs) - c.index > 1) this.#counters.delete(key);
    }
  }

  get size(): number {
    return this.#counters.size;
  }

  close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#counters.clear();
    return Promise.resolve();
  }
}
