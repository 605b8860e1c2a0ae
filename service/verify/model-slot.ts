import type { Classifier } from '../../core/classifier/types.ts';

export type ModelState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly classifier: Classifier }
  | { readonly kind: 'failed'; readonly error: Error };

/**
 * What scores requests: the active model (and the shadow, if any). The server listens while the first model loads:
 * verify and /readyz answer 503 until it is in. A switch is one assignment of a model already loaded and warmed, so
 * a request is scored by the old model or the new one, never by half of either.
 */
export class ModelSlot {
  #state: ModelState = { kind: 'loading' };
  #shadow: Classifier | undefined;
  /** What the serving record names and cannot be served (by version, or the record itself), said for /readyz. */
  readonly #problems = new Map<string, string>();
  readonly loaded: Promise<Classifier>;

  constructor(source: Classifier | Promise<Classifier>) {
    this.loaded = Promise.resolve(source);
    this.loaded.then(
      (classifier) => {
        if (this.#state.kind === 'loading') this.#state = { kind: 'ready', classifier };
      },
      (error: unknown) => {
        if (this.#state.kind === 'loading')
          this.#state = { kind: 'failed', error: error instanceof Error ? error : new Error(String(error)) };
      },
    );
  }

  get state(): ModelState {
    return this.#state;
  }

  get classifier(): Classifier | undefined {
    return this.#state.kind === 'ready' ? this.#state.classifier : undefined;
  }

  get shadow(): Classifier | undefined {
    return this.#shadow;
  }

  /** Serves `classifier` from the next request on. */
  activate(classifier: Classifier): void {
    this.#state = { kind: 'ready', classifier };
  }

  setShadow(classifier: Classifier | undefined): void {
    this.#shadow = classifier;
  }

  reportProblem(key: string, message: string): void {
    this.#problems.set(key, message);
  }

  clearProblem(key: string): void {
    this.#problems.delete(key);
  }

  /** Forgets the problems not keyed in `keys` (versions the record no longer names). */
  retainProblems(keys: ReadonlySet<string>): void {
    for (const k of [...this.#problems.keys()]) if (!keys.has(k)) this.#problems.delete(k);
  }

  get problems(): string[] {
    return [...this.#problems.values()];
  }
}
