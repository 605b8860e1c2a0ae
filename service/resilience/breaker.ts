export type BreakerState = 'closed' | 'open';

export interface BreakerOptions {
  /** Failed or slow calls in a row that open the breaker. */
  readonly failures: number;
  /** A call slower than this counts as failed, and its caller gets the fallback at this point. */
  readonly callTimeoutMs: number;
  /** How long the breaker stays open before it probes. */
  readonly openMs: number;
  /** One cheap call (PING) that says the dependency answers again; run by the breaker, never by a caller. */
  readonly probe: () => Promise<unknown>;
  readonly onChange?: (state: BreakerState, reason: string) => void;
}

export class BreakerTimeoutError extends Error {
  override name = 'BreakerTimeoutError';
}

/**
 * A circuit breaker for the calls a request waits on. Closed: calls run, each bounded by callTimeoutMs. After
 * `failures` failed or slow calls in a row it opens: every call goes straight to its fallback, so a hung dependency
 * costs a request nothing instead of a timeout each. While open, the breaker itself probes every openMs (no request
 * waits on a probe) and closes on the first answer.
 */
export class CircuitBreaker {
  readonly #o: BreakerOptions;
  #state: BreakerState = 'closed';
  #failures = 0;
  #probeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Calls waiting on the dependency now: released to their fallback at once when the breaker opens. */
  readonly #waiting = new Set<(err: Error) => void>();

  constructor(options: BreakerOptions) {
    this.#o = options;
  }

  get state(): BreakerState {
    return this.#state;
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  /** `call` bounded by the timeout, or `fallback` when the breaker is open or the call fails. */
  async run<T>(call: () => Promise<T>, fallback: (err: unknown) => T | Promise<T>): Promise<T> {
    if (this.#state === 'open') return fallback(new Error('circuit open'));
    try {
      const value = await this.#bounded(call);
      this.#failures = 0;
      return value;
    } catch (err) {
      this.failed(err instanceof BreakerTimeoutError ? 'slow' : 'error');
      return fallback(err);
    }
  }

  /** Counts a failure seen by a caller that does its own timing (the review queue add). */
  failed(reason: string): void {
    if (this.#state === 'open') return;
    this.#failures++;
    // A call timed out while others still wait on the same dependency: they count as failing too, so a hang opens
    // the breaker at its first timeout under load instead of after `failures` timeouts, each a request's wait.
    const waiting = reason === 'slow' ? this.#waiting.size : 0;
    if (this.#failures + waiting >= this.#o.failures) this.#open(`${this.#failures} ${reason} calls in a row, ${waiting} more waiting`);
  }

  succeeded(): void {
    if (this.#state === 'closed') this.#failures = 0;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#probeTimer);
  }

  #open(reason: string): void {
    this.#state = 'open';
    // They wait on the dependency that just failed this many calls in a row: no need to wait out their own timeouts.
    for (const release of this.#waiting) release(new BreakerTimeoutError(`circuit opened: ${reason}`));
    this.#waiting.clear();
    this.#o.onChange?.('open', reason);
    this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    if (this.#closed) return;
    this.#probeTimer = setTimeout(() => {
      this.#bounded(this.#o.probe).then(
        () => {
          this.#state = 'closed';
          this.#failures = 0;
          this.#o.onChange?.('closed', 'probe answered');
        },
        () => this.#scheduleProbe(),
      );
    }, this.#o.openMs);
    this.#probeTimer.unref();
  }

  async #bounded<T>(call: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let release: ((err: Error) => void) | undefined;
    const pending = call();
    try {
      return await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          release = reject;
          this.#waiting.add(reject);
          timer = setTimeout(() => reject(new BreakerTimeoutError(`no answer within ${this.#o.callTimeoutMs} ms`)), this.#o.callTimeoutMs);
        }),
      ]);
    } catch (err) {
      // The call goes on after its timeout; its own failure later is nobody's to handle.
      pending.catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
      if (release !== undefined) this.#waiting.delete(release);
    }
  }
}
