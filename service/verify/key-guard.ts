import type { RateDecision, RateLimiter, RateRule } from '../rate-limit/types.ts';

/**
 * Limits failed API-key checks per client IP. Failures are counted in the (shared) limiter; once an IP is over,
 * this instance also answers its valid-key requests with 429 until the block ends, so a guess that happens to
 * be right is not revealed, and the common (valid-key) path needs no extra Redis round trip.
 */
export class KeyGuard {
  readonly #blockedUntil = new Map<string, { until: number; epoch: string }>();

  /**
   * `epoch`: names the set of valid API keys (keySetEpoch). Counts and blocks belong to one set: when a tenants
   * reload changes it (a key restored after a bad edit), clients that failed only because their key was missing are
   * let in at once, on every instance alike, instead of waiting out the window.
   */
  constructor(
    private readonly limiter: RateLimiter,
    private readonly rule: RateRule,
    private readonly now: () => number = Date.now,
    private readonly epoch: () => string = () => '',
  ) {}

  /** Seconds this IP must still wait, or 0. */
  blockedFor(ip: string): number {
    const block = this.#blockedUntil.get(ip);
    if (block === undefined) return 0;
    const left = block.until - this.now();
    if (left <= 0 || block.epoch !== this.epoch()) {
      this.#blockedUntil.delete(ip);
      return 0;
    }
    return Math.max(1, Math.ceil(left / 1000));
  }

  async recordFailure(ip: string): Promise<RateDecision> {
    const epoch = this.epoch();
    const decision = await this.limiter.hit(epoch === '' ? `keyfail:${ip}` : `keyfail:${epoch}:${ip}`, this.rule);
    if (!decision.allowed) {
      if (this.#blockedUntil.size > 100_000) this.#prune();
      this.#blockedUntil.set(ip, { until: this.now() + decision.retryAfterSeconds * 1000, epoch });
    }
    return decision;
  }

  #prune(): void {
    const now = this.now();
    for (const [ip, block] of this.#blockedUntil) if (block.until <= now) this.#blockedUntil.delete(ip);
  }
}
