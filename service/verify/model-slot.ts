import type { Classifier } from '../../core/classifier/types.ts';

export type ModelState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly classifier: Classifier }
  | { readonly kind: 'failed'; readonly error: Error };

/** Lets the server listen while the model loads: verify and /readyz answer 503 until it is in. */
export class ModelSlot {
  #state: ModelState = { kind: 'loading' };
  readonly loaded: Promise<Classifier>;

  constructor(source: Classifier | Promise<Classifier>) {
    this.loaded = Promise.resolve(source);
    this.loaded.then(
      (classifier) => (this.#state = { kind: 'ready', classifier }),
      (error: unknown) => (this.#state = { kind: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    );
  }

  get state(): ModelState {
    return this.#state;
  }

  get classifier(): Classifier | undefined {
    return this.#state.kind === 'ready' ? this.#state.classifier : undefined;
  }
}
