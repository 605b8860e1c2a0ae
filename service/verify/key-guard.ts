import type { RateDecision, RateLimiter, RateRule } from '../rate-limit/types.ts';

/**
 * Limits failed API-key checks per client IP. Failures are counted in the (shared) limiter; once an IP is over,
 * this instance also answers its valid-key requests with 429 until the block ends, so a guess that happens to
 * be right is not revealed, and the common (valid-key) path needs no extra Redis round trip.
 */
export class KeyGuard {
  readonly #blockedUntil = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly rule: RateRule,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds this IP must still wait, or 0. */
  blockedFor(ip: string): number {
    const until = this.#blockedUntil.get(ip);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left <= 0) {
      this.#blockedUntil.delete(ip);
      return 0;
    }
    return Math.max(1, Math.ceil(left / 1000));
  }

  async recordFailure(ip: string): Promise<RateDecision> {
    const decision = await this.limiter.hit(`keyfail:${ip}`, this.rule);
    if (!decision.allowed) {
      if (this.#blockedUntil.size > 100_000) this.#prune();
      this.#blockedUntil.set(ip, this.now() + decision.retryAfterSeconds * 1000);
    }
    return decision;
  }

  #prune(): void {
    const now = this.now();
    for (const [ip, until] of this.#blockedUntil) if (until <= now) this.#blockedUntil.delete(ip);
  }
}
