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
  readonly now?: () => number;
}

export class BreakerTimeoutError extends Error {
  override name = 'BreakerTimeoutError';
  /** How late the timeout itself fired: this process was stalled that long, and could not read answers either. */
  constructor(
    message: string,
    readonly lateMs = 0,
  ) {
    super(message);
  }
}

/**
 * A circuit breaker for the calls a request waits on. Closed: calls run, each bounded by callTimeoutMs. After
 * `failures` failed or slow calls in a row it opens: every call goes straight to its fallback, so a hung dependency
 * costs a request nothing instead of a timeout each. While open, the breaker itself probes every openMs (no request
 * waits on a probe) and closes on the first answer.
 *
 * A slow call is a failure only of a sick dependency, not of a busy one: it counts only when the dependency answered
 * no call at all within the last callTimeoutMs (judged after the I/O already received has been read, so a blocked
 * event loop is not taken for a silent dependency). Answers still flowing, even late ones, mean calls wait in line
 * behind each other; nothing answering means a hang, and then the calls still waiting count as failing too.
 */
export class CircuitBreaker {
  readonly #o: BreakerOptions;
  #state: BreakerState = 'closed';
  #failures = 0;
  #probeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** When the dependency last answered a call (any call, including one whose caller had already given up on it). */
  #lastAnswerAt = -Infinity;
  readonly #now: () => number;
  /** Calls waiting on the dependency now: released to their fallback at once when the breaker opens. */
  readonly #waiting = new Set<(err: Error) => void>();

  constructor(options: BreakerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
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
      if (err instanceof BreakerTimeoutError) this.failed('slow', err.lateMs);
      else this.failed('error');
      return fallback(err);
    }
  }

  /**
   * Counts a failure seen by a caller that does its own timing (the review queue add). A 'slow' one is judged once
   * the I/O already received is read: it counts only if the dependency answered nothing within callTimeoutMs.
   */
  failed(reason: string, stalledMs = 0): void {
    if (this.#state === 'open') return;
    if (reason !== 'slow') return this.#count(reason, 0);
    setImmediate(() => {
      if (this.#state === 'open' || this.#closed) return;
      // Answers still coming in: the call waited in line behind others on a busy dependency, which is not sick. A
      // silence as long as this process's own stall (a blocked event loop, a starved CPU) says nothing of Redis.
      if (this.#now() - this.#lastAnswerAt < this.#o.callTimeoutMs + stalledMs) return;
      // Nothing answers: the calls still waiting on it count as failing too, so a hang opens the breaker at its first
      // timeout under load instead of after `failures` timeouts, each a request's wait.
      this.#count(reason, this.#waiting.size);
    });
  }

  /** A call the caller timed itself was answered (the review queue add). */
  succeeded(): void {
    this.#answered();
  }

  /** Any answer, even one its caller no longer waited for: the slow calls before it were not "in a row" of a hang. */
  #answered(): void {
    this.#lastAnswerAt = this.#now();
    if (this.#state === 'closed') this.#failures = 0;
  }

  #count(reason: string, waiting: number): void {
    this.#failures++;
    if (this.#failures + waiting >= this.#o.failures) this.#open(`${this.#failures} ${reason} calls in a row, ${waiting} more waiting`);
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
          this.#lastAnswerAt = this.#now();
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
    // An answer after its caller gave up still says the dependency is alive, only slow.
    pending.then(
      () => this.#answered(),
      () => undefined,
    );
    try {
      return await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          release = reject;
          this.#waiting.add(reject);
          const due = this.#now() + this.#o.callTimeoutMs;
          timer = setTimeout(
            () => reject(new BreakerTimeoutError(`no answer within ${this.#o.callTimeoutMs} ms`, Math.max(0, this.#now() - due))),
            this.#o.callTimeoutMs,
          );
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
