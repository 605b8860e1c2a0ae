/** Most entries one flush takes by default: a script call stays short however busy the turn was. */
const MAX_BATCH = 500;

/**
 * Collects what is added within one event-loop turn and hands it over in one call (after setImmediate), so work done
 * per submission costs one Redis round trip per turn, not one each. Each add resolves or rejects with its batch.
 */
export class TurnBatch<T> {
  #pending: { value: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  #scheduled = false;

  constructor(
    private readonly flush: (values: readonly T[]) => Promise<void>,
    /** Most values one flush takes; a busier turn is handed over in several flushes. */
    private readonly maxBatch = MAX_BATCH,
  ) {}

  add(value: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ value, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#run());
    });
  }

  #run(): void {
    this.#scheduled = false;
    const all = this.#pending;
    this.#pending = [];
    for (let i = 0; i < all.length; i += this.maxBatch) {
      const batch = all.slice(i, i + this.maxBatch);
      this.flush(batch.map((b) => b.value)).then(
        () => batch.forEach((b) => b.resolve()),
        (err: unknown) => batch.forEach((b) => b.reject(err)),
      );
    }
  }
}
