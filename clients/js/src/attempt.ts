/** The `fetch` the client calls: the global one by default, or one the caller passes (tests, instrumentation). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** How one request ended, before anyone decides what it means. */
export type Attempt =
  | { readonly kind: 'answer'; readonly status: number; readonly retryAfter: string | null; readonly text: string }
  | { readonly kind: 'unreachable'; readonly error: unknown }
  | { readonly kind: 'timeout' };

/**
 * Sends one request and reads its whole body within `timeoutMs`. The race against the timer holds even for a
 * `fetch` that ignores its signal, so no attempt outlives its time. A caller's `signal` aborting rethrows its reason.
 */
export async function attempt(
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort();
    },
    Math.max(0, timeoutMs),
  );
  const onCallerAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const stopped = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
  );
  stopped.catch(() => undefined);
  try {
    const response = await Promise.race([fetchImpl(url, { ...init, signal: controller.signal }), stopped]);
    const text = await Promise.race([response.text(), stopped]);
    return { kind: 'answer', status: response.status, retryAfter: response.headers.get('retry-after'), text };
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    return timedOut ? { kind: 'timeout' } : { kind: 'unreachable', error };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
  }
}
