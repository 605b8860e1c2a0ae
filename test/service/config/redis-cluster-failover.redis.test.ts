import { readdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../service/app.ts';
import { createRedisClient, type RedisClient } from '../../../service/config/redis-target.ts';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import { startReview, type Review } from '../../../service/review/setup.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { TestCluster } from '../../support/redis-cluster.ts';
import { KEY as API_KEY, tenantsFile } from '../../support/tenants.ts';
import { keywordClassifier, reviewEnv } from '../review/app-fixture.ts';
import { silent } from '../../support/logs.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { testPrefix } from '../../support/redis.ts';
import { until } from '../../support/until.ts';

let cluster: TestCluster;
const clients: RedisClient[] = [];
const limiterErrors: unknown[] = [];
let limiters: [RedisRateLimiter, RedisRateLimiter];
let review: Review;
let app: FastifyInstance;
let spool: Awaited<ReturnType<typeof tempDir>>;
const registry = new Registry();
let prefix = '';
/** A master that holds the account's rate-limit counter and the whole review queue: the one this suite stops. */
let victim = 0;
/** A rate-limit key whose slot the victim served. */
let probeKey = '';

async function counter(name: string): Promise<number> {
  return Number(/ (\d+)$/m.exec(await registry.getSingleMetricAsString(name))?.[1] ?? NaN);
}

beforeAll(async () => {
  cluster = await TestCluster.start({ nodeTimeoutMs: 2000 });
  // The account's counter is `<prefix>:{acct:acme}:…`; find a queue prefix whose hash tag lives on the same master.
  victim = await cluster.masterOf('{acct:acme}');
  for (let i = 0; prefix === '' && i < 200; i++) {
    const candidate = testPrefix('failover');
    if ((await cluster.masterOf(`{${candidate}}`)) === victim) prefix = candidate;
  }
  for (let i = 0; probeKey === '' && i < 200; i++) if ((await cluster.masterOf(`{probe-${i}}`)) === victim) probeKey = `probe-${i}`;
  expect(prefix).not.toBe('');

  const connect = (): RedisClient => {
    const c = createRedisClient({ kind: 'cluster', nodes: cluster.nodes }, silent);
    clients.push(c);
    return c;
  };
  const limiter = (redis: RedisClient) =>
    new RedisRateLimiter(redis, { prefix: `${prefix}:rl`, fallback: new MemoryRateLimiter(), onError: (err) => limiterErrors.push(err) });
  limiters = [limiter(connect()), limiter(connect())];
  for (const c of clients) await until(() => c.status === 'ready', 'cluster client ready');

  spool = await tempDir('failover-spool');
  const file = tenantsFile();
  const acme = file.accounts[0];
  if (acme === undefined) throw new Error('no acme account');
  const tenants = {
    current: parseTenants(
      JSON.stringify({
        ...file,
        accounts: [{ ...acme, rateLimit: { max: 100_000, windowSeconds: 3600, algorithm: 'fixed' } }, ...file.accounts.slice(1)],
      }),
      'test',
    ),
  };
  const { REDIS_URL: _, ...settings } = reviewEnv('', spool.dir, prefix);
  review = startReview({ env: { ...settings, REDIS_CLUSTER_NODES: cluster.nodes }, log: silent, moderators: tenants, registry });
  await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
  app = await buildApp({
    tenants,
    classifier: keywordClassifier,
    maxEventLoopDelayMs: 0,
    rateLimiter: limiters[0],
    reviewSink: review.sink,
    reviewRoutes: review.routes,
  });
  await app.ready();
}, 90_000);

afterAll(async () => {
  await app?.close();
  await review?.close();
  for (const c of clients) c.disconnect();
  await cluster?.stop();
  await spool?.remove();
});

async function flagged(i: number): Promise<{ status: number; submissionId?: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { 'content-type': 'application/json', origin: 'https://example.com' },
    payload: { apiKey: API_KEY, formId: 'contact', payload: { message: `Casino bonus number ${i}` } },
  });
  return { status: res.statusCode, submissionId: res.json<{ submissionId?: string }>().submissionId };
}

describe('a Redis Cluster master stopped mid-traffic', () => {
  it('answers every request, loses no flagged submission, and shares limits and queues again after the failover', async () => {
    const answers: { status: number; submissionId?: string }[] = [];
    let i = 0;
    // Some traffic while all is well.
    while (i < 10) answers.push(await flagged(i++));

    // The master holding the queue and the account's counter crashes (SIGKILL by its PID); traffic goes on.
    await cluster.kill(victim);
    const failover = cluster.waitFailover(victim, 45_000);
    let promoted = false;
    void failover.then(
      () => (promoted = true),
      () => undefined,
    );
    const stopAt = Date.now() + 45_000;
    while (!promoted && Date.now() < stopAt) answers.push(await flagged(i++));
    await failover;
    // And some after it, once the clients have the new slot map.
    const after = i + 10;
    while (i < after) answers.push(await flagged(i++));

    // Answers kept coming: limits counted in memory meanwhile (the documented fallback), never an error answer.
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(limiterErrors.length).toBeGreaterThan(0);
    // Flagged submissions of the outage waited in memory for the store or went to the spool, by how long the
    // failover took (a batch that outlives its timeout is spooled whole); either way none may be lost, below.

    // Nothing flagged is lost: every answered submission reaches the store (the spool drains into the new master).
    const ids = answers.map((a) => a.submissionId ?? '');
    await until(async () => (await review.store.items.counts('acme')).pending === ids.length, `${ids.length} items in the store`, 45_000);
    const stored = (await review.store.items.listPending('acme', {}, 0, ids.length + 10)).map((item) => item.submissionId);
    expect(stored.sort()).toEqual([...ids].sort());
    await until(async () => (await readdir(spool.dir)).every((f) => !f.endsWith('.jsonl')), 'spool drained');

    // The shared limit works again on the promoted replica: two instances count one key together, in Redis.
    const errorsBefore = limiterErrors.length;
    const rule = { max: 2, windowMs: 3_600_000, algorithm: 'fixed' as const };
    const [a, b] = limiters;
    expect([(await a.hit(probeKey, rule)).allowed, (await b.hit(probeKey, rule)).allowed, (await a.hit(probeKey, rule)).allowed]).toEqual([
      true,
      true,
      false,
    ]);
    expect(limiterErrors.length).toBe(errorsBefore);

    // And the queue takes new jobs directly again.
    const queuedBefore = await counter('formguard_review_queued_total');
    const spooledNow = await counter('formguard_review_spooled_total');
    const last = await flagged(i++);
    await review.sink.flush();
    expect(await counter('formguard_review_queued_total')).toBe(queuedBefore + 1);
    expect(await counter('formguard_review_spooled_total')).toBe(spooledNow);
    await until(async () => (await review.store.items.get('acme', last.submissionId ?? '')) !== undefined, 'the last item stored');
  }, 120_000);
});
