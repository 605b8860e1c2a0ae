import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { distinctBodies, type BenchBody } from './bodies.ts';
import { load, median, type LoadResult } from './load.ts';
import type { Started } from './processes.ts';

/** One target's figures over the rounds of the mixed-stream scenario. */
export interface MixedTarget {
  /** req/s answered in each round. */
  rounds: number[];
  reqPerSec: number;
  /** Redis mode: requests over the round plus the time its review queue took to drain after it (the work after the answer included). */
  sustainedReqPerSec: number;
  /** Seconds the review queue took to empty after each round (0 for embedded). */
  drainS: number[];
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

export interface RedisVsEmbedded {
  rounds: number;
  durationS: number;
  embedded: MixedTarget;
  redis: MixedTarget;
  /** The Redis-mode service's review counters at the end (its /metrics): where the flagged submissions went. */
  review: Record<string, number>;
  /** Redis-mode / embedded req/s, the median of the per-round ratios. */
  ratio: number;
  /** The same with Redis mode's rounds counted until its review queue drained. */
  sustainedRatio: number;
}

/**
 * Redis mode against embedded on the mixed stream: the realistic bodies (half spam) made distinct request by request
 * (bodies.ts distinctBodies), so Redis mode stores and indexes every submission as it would in production. The two
 * services are loaded in alternating rounds (the order flips each round); after each Redis-mode round the bench waits
 * until the review queue is empty and no flagged job is left in the service's memory (formguard_review_waiting), so
 * its backlog never runs during the next round, and counts that wait.
 */
export async function redisVsEmbedded(opts: {
  embedded: Started;
  redis: Started;
  redisClient: Redis;
  /** BULLMQ_PREFIX of the Redis-mode service. */
  prefix: string;
  /** The Redis-mode service's /metrics (admin port): flagged jobs still in its memory count as work not done. */
  metricsUrl: string;
  bodies: readonly BenchBody[];
  rounds: number;
  durationS: number;
  warmS: number;
  log: (msg: string) => void;
}): Promise<RedisVsEmbedded> {
  const next = distinctBodies(opts.bodies);
  const connection = opts.redisClient.duplicate({ maxRetriesPerRequest: null });
  const queue = new Queue('review', { connection, prefix: opts.prefix });
  // The sink stores flagged jobs from memory in batches: the queue only carries the spool's replays.
  const inMemory = async (): Promise<number> => {
    const text = await (await fetch(opts.metricsUrl)).text();
    return ['formguard_review_waiting', 'formguard_review_lookup_waiting'].reduce((sum, name) => {
      const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
      if (m === null) throw new Error(`${opts.metricsUrl} has no ${name}`);
      return sum + Number(m[1]);
    }, 0);
  };
  const drain = async (): Promise<number> => {
    const t0 = Date.now();
    const deadline = t0 + 120_000;
    while (Date.now() < deadline) {
      const c = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      if (Object.values(c).every((n) => n === 0) && (await inMemory()) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return (Date.now() - t0) / 1000;
  };
  try {
    for (const s of [opts.embedded, opts.redis]) await load({ target: s.name, url: s.url, bodies: [], next, durationS: opts.warmS });
    await drain();
    const results: { target: 'embedded' | 'redis'; res: LoadResult; drainS: number }[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 === 0 ? (['embedded', 'redis'] as const) : (['redis', 'embedded'] as const);
      for (const target of order) {
        const s = target === 'embedded' ? opts.embedded : opts.redis;
        const res = await load({ target: s.name, url: s.url, bodies: [], next, durationS: opts.durationS });
        const drainS = target === 'redis' ? await drain() : 0;
        results.push({ target, res, drainS });
        opts.log(
          `mixed round ${r + 1}/${opts.rounds} ${target.padEnd(9)} ${res.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${res.p50Ms} ms  p99 ${res.p99Ms} ms  non2xx ${res.non2xx} err ${res.errors}${target === 'redis' ? `  queue drained in ${drainS.toFixed(1)} s` : ''}`,
        );
      }
    }
    const figures = (target: 'embedded' | 'redis'): MixedTarget => {
      const rs = results.filter((x) => x.target === target);
      const statusCodes: Record<string, number> = {};
      for (const x of rs) for (const [code, n] of Object.entries(x.res.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
      return {
        rounds: rs.map((x) => x.res.reqPerSec),
        reqPerSec: median(rs.map((x) => x.res.reqPerSec)),
        sustainedReqPerSec: median(rs.map((x) => x.res.requests / (x.res.seconds + x.drainS))),
        drainS: rs.map((x) => x.drainS),
        p50Ms: median(rs.map((x) => x.res.p50Ms)),
        p99Ms: median(rs.map((x) => x.res.p99Ms)),
        non2xx: rs.reduce((a, x) => a + x.res.non2xx, 0),
        errors: rs.reduce((a, x) => a + x.res.errors + x.res.timeouts, 0),
        statusCodes,
      };
    };
    const metrics = await (await fetch(opts.metricsUrl)).text();
    const review: Record<string, number> = {};
    for (const m of metrics.matchAll(
      /^formguard_(review_(?:queued|spooled|lookup_skipped|evicted)_total|review_(?:dropped|shed)_total\{reason="\w+"\}|redis_breaker_openings_total) (\S+)$/gm,
    ))
      review[m[1] as string] = Number(m[2]);
    const e = results.filter((x) => x.target === 'embedded');
    const d = results.filter((x) => x.target === 'redis');
    const perRound = (f: (x: (typeof results)[number]) => number) =>
      median(Array.from({ length: opts.rounds }, (_, i) => f(d[i] as (typeof results)[number]) / f(e[i] as (typeof results)[number])));
    return {
      rounds: opts.rounds,
      durationS: opts.durationS,
      embedded: figures('embedded'),
      redis: figures('redis'),
      review,
      ratio: perRound((x) => x.res.reqPerSec),
      sustainedRatio: perRound((x) => x.res.requests / (x.res.seconds + x.drainS)),
    };
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

/** The scenario's table, for the report and the terminal. */
export function renderRedisVsEmbedded(m: RedisVsEmbedded): string {
  const row = (label: string, t: MixedTarget, ratio: string, sustained: string) =>
    `| ${label} | ${t.reqPerSec.toFixed(0)} | ${t.sustainedReqPerSec.toFixed(0)} | ${t.p50Ms} | ${t.p99Ms} | ${ratio} | ${sustained} | ${t.non2xx + t.errors} |`;
  return [
    `Redis mode against embedded on the mixed stream (the realistic bodies, half spam, each request's text made distinct;`,
    `${m.rounds} rounds × ${m.durationS} s each, alternating; after each Redis-mode round the bench waits for its review queue`,
    `to drain: ${m.redis.drainS.map((x) => x.toFixed(1)).join(' / ')} s, counted in "sustained").`,
    '',
    '| target | req/s | sustained req/s | p50 ms | p99 ms | / embedded | sustained / embedded | non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('embedded', m.embedded, '1', '1'),
    row('Redis mode', m.redis, pct(m.ratio), pct(m.sustainedRatio)),
    '',
    `Redis mode's review counters at the end: ${Object.entries(m.review)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ].join('\n');
}
