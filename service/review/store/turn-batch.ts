/** Most entries one flush takes by default: a script call stays short however busy the turn was. */
const MAX_BATCH = 500;

export interface TurnBatchOptions {
  /** Most values one flush takes; a busier turn is handed over in several flushes. */
  readonly maxBatch?: number;
  /**
   * Most flushes under way at once (default: no limit). While that many are, values wait and go together in the next
   * flush when one ends (group commit): the busier Redis is, the fuller each call, instead of more calls queueing.
   */
  readonly maxFlushing?: number;
  /** Most values waiting for a flush; an add past it is refused at once (default: no limit). */
  readonly maxWaiting?: number;
}

export class BatchFullError extends Error {
  override name = 'BatchFullError';
}

/**
 * Collects what is added within one event-loop turn and hands it over in one call (after setImmediate), so work done
 * per submission costs one Redis round trip per turn, not one each. Each add resolves or rejects with its batch.
 */
export class TurnBatch<T> {
  #pending: { value: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  #scheduled = false;
  #flushing = 0;
  #inFlush = 0;
  readonly #maxBatch: number;
  readonly #maxFlushing: number;
  readonly #maxWaiting: number;

  constructor(
    private readonly flush: (values: readonly T[]) => Promise<void>,
    opts: TurnBatchOptions = {},
  ) {
    this.#maxBatch = opts.maxBatch ?? MAX_BATCH;
    this.#maxFlushing = opts.maxFlushing ?? Infinity;
    this.#maxWaiting = opts.maxWaiting ?? Infinity;
  }

  /** Values added whose flush has not ended yet (waiting for one, or in one under way). */
  get waiting(): number {
    return this.#pending.length + this.#inFlush;
  }

  add(value: T): Promise<void> {
    if (this.#pending.length >= this.#maxWaiting) return Promise.reject(new BatchFullError(`${this.#pending.length} waiting`));
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ value, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#run());
    });
  }

  #run(): void {
    this.#scheduled = false;
    while (this.#pending.length > 0 && this.#flushing < this.#maxFlushing) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      this.#flushing++;
      this.#inFlush += batch.length;
      let flushed: Promise<void>;
      try {
        flushed = this.flush(batch.map((b) => b.value));
      } catch (err) {
        flushed = Promise.reject(err);
      }
      void flushed
        .then(
          () => batch.forEach((b) => b.resolve()),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.#flushing--;
          this.#inFlush -= batch.length;
          // What waited meanwhile goes in the next turn, together with what that turn adds.
          if (this.#pending.length > 0 && !this.#scheduled) {
            this.#scheduled = true;
            setImmediate(() => this.#run());
          }
        });
    }
  }
}
