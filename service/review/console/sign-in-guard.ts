/**
 * Counts failed sign-ins per client address per window (in memory, per instance): past `max`, that address's wrong
 * tokens are answered 429 and logged once. A right token is never refused here: tokens are 256 random bits, so the
 * count is there to flag guessing, not to make it harder.
 */
export class SignInGuard {
  // Insertion order is window order (every window has the same length), so the first entries end first.
  readonly #failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max = 10,
    private readonly windowMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
    private readonly capacity = 10_000,
  ) {}

  blocked(ip: string): boolean {
    const entry = this.#failures.get(ip);
    if (entry === undefined) return false;
    if (entry.resetAt <= this.now()) {
      this.#failures.delete(ip);
      return false;
    }
    return entry.count >= this.max;
  }

  /** Seconds until the address's window ends (0 when it has none). */
  retryAfterSeconds(ip: string): number {
    const entry = this.#failures.get(ip);
    return entry === undefined ? 0 : Math.max(0, Math.ceil((entry.resetAt - this.now()) / 1000));
  }

  fail(ip: string): void {
    const now = this.now();
    const entry = this.#failures.get(ip);
    if (entry === undefined || entry.resetAt <= now) {
      this.#failures.delete(ip);
      this.#failures.set(ip, { count: 1, resetAt: now + this.windowMs });
    } else entry.count++;
    if (this.#failures.size > this.capacity) this.#shrink(now, ip);
  }

  /**
   * Memory stays bounded without lifting a block: ended windows go first, then addresses still under the limit
   * (a single failure from each of thousands of addresses must not buy a blocked one a fresh start), and only
   * if every other entry is a live block, the oldest blocks. The address that just failed is always kept.
   */
  #shrink(now: number, current: string): void {
    // Down to 90%, so a flood of new addresses pays for a pass over the table once per 10% of it, not per failure.
    const target = Math.floor(this.capacity * 0.9);
    for (const [ip, e] of this.#failures) if (e.resetAt <= now) this.#failures.delete(ip);
    for (const [ip, e] of this.#failures) {
      if (this.#failures.size <= target) return;
      if (e.count < this.max && ip !== current) this.#failures.delete(ip);
    }
    for (const ip of this.#failures.keys()) {
      if (this.#failures.size <= target) return;
      if (ip !== current) this.#failures.delete(ip);
    }
  }
}
