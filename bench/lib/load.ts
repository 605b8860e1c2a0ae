import autocannon from 'autocannon';
import type { BenchBody } from './bodies.ts';
import { BENCH_ORIGIN } from './bodies.ts';

export interface LoadResult {
  readonly target: string;
  readonly requests: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly seconds: number;
  /** Answers by HTTP status, so a bench line can say what its non-2xx were. */
  readonly statusCodes: Record<string, number>;
}

export const CONNECTIONS = 50;

/**
 * Loads `url` + /v1/verify with the bodies in turn (each connection cycles through the whole list), 50
 * connections, no pipelining, for `durationS` seconds or `amount` requests (then stopped after `maxSeconds`).
 */
export async function load(opts: {
  target: string;
  url: string;
  bodies: readonly BenchBody[];
  durationS?: number;
  amount?: number;
  maxSeconds?: number;
  /** Each request's body from this (bodies' order is then the generator's own); `bodies` is ignored. */
  next?: () => string;
}): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', origin: BENCH_ORIGIN };
  const t0 = process.hrtime.bigint();
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: opts.url + '/v1/verify',
        connections: CONNECTIONS,
        pipelining: 1,
        ...(opts.amount === undefined ? { duration: opts.durationS ?? 5 } : { amount: opts.amount }),
        requests:
          opts.next === undefined
            ? opts.bodies.map((b) => ({ method: 'POST' as const, path: '/v1/verify', headers, body: b.json }))
            : [
                {
                  method: 'POST' as const,
                  path: '/v1/verify',
                  headers,
                  setupRequest: (req: autocannon.Request) => ({ ...req, body: (opts.next as () => string)() }),
                },
              ],
      },
      (err, result) => (err ? reject(err as Error) : resolve(result)),
    );
  });
  // With a callback autocannon returns its instance, which can be stopped (bounds an `amount` run in time).
  const timer = opts.maxSeconds === undefined ? undefined : setTimeout(() => instance?.stop(), opts.maxSeconds * 1000);
  const r = await done;
  if (timer !== undefined) clearTimeout(timer);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const total = r['2xx'] + r.non2xx;
  return {
    target: opts.target,
    requests: total,
    // For fixed-duration runs autocannon's own average; for amount runs, count over wall time.
    reqPerSec: opts.amount === undefined ? r.requests.average : total / seconds,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    ok2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    seconds,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v.count ?? 0])),
  };
}

export { median, percentile } from './stats.ts';
