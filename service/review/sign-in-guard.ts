/** Slows token guessing: at most `max` failed sign-ins per client address per window (in memory, per instance). */
export class SignInGuard {
  readonly #failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max = 10,
    private readonly windowMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
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

  fail(ip: string): void {
    const now = this.now();
    const entry = this.#failures.get(ip);
    if (entry === undefined || entry.resetAt <= now) this.#failures.set(ip, { count: 1, resetAt: now + this.windowMs });
    else entry.count++;
    if (this.#failures.size > 10_000) this.#failures.clear();
  }
}
