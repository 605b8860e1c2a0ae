import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Cluster } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../service/app.ts';
import { createRedisClient, scanKeys, type RedisClient } from '../../../service/config/redis-target.ts';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import { exportLabels } from '../../../cli/lib/label-files/export-labels.ts';
import { REVIEW_QUEUE } from '../../../service/review/intake/queue.ts';
import { startReview, type Review } from '../../../service/review/setup.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { TestCluster } from '../../support/redis-cluster.ts';
import { ORIGIN, tenants, testApp, verifyBody } from '../helpers.ts';
import { tenantsFile } from '../../support/tenants.ts';
import { ACME_TOKEN, KEY as API_KEY, tenantsFile as reviewTenantsFile } from '../../support/tenants.ts';
import { JSON_HEADERS, keywordClassifier, reviewEnv, signIn } from '../review/app-fixture.ts';
import { silent } from '../../support/logs.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { testPrefix } from '../../support/redis.ts';
import { until } from '../../support/until.ts';

// A real Redis Cluster (three masters, one replica each) of this suite's own, on loopback ports.
let cluster: TestCluster;
let client: RedisClient;
const limiterErrors: unknown[] = [];

beforeAll(async () => {
  cluster = await TestCluster.start();
  client = createRedisClient({ kind: 'cluster', nodes: cluster.nodes }, silent);
  await until(() => client.status === 'ready', 'cluster client ready');
}, 90_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

/** Every key under `prefix` on every master, with the master holding it. */
async function keysByMaster(prefix: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const node of (client as Cluster).nodes('master')) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      const at = `${node.options.port}`;
      out.set(at, [...(out.get(at) ?? []), ...found]);
    } while (cursor !== '0');
  }
  return out;
}

describe('rate limits on a Redis Cluster', () => {
  const prefix = testPrefix('cluster-rl');
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    const shared = tenants(tenantsFile({ rateLimit: { max: 4, windowSeconds: 3600, algorithm: 'sliding' } }));
    const keyFailureRule = { max: 2, windowMs: 3_600_000, algorithm: 'fixed' as const };
    // Two instances, each with its own connection to the cluster; a limiter error would quietly count in memory.
    const instance = () => {
      const redis = createRedisClient({ kind: 'cluster', nodes: cluster.nodes }, silent);
      const rateLimiter = new RedisRateLimiter(redis, {
        prefix,
        fallback: new MemoryRateLimiter(),
        onError: (err) => limiterErrors.push(err),
      });
      return until(() => redis.status === 'ready', 'instance connected').then(async () => {
        const app = await testApp({ tenants: shared, rateLimiter, redis, keyFailureRule });
        app.addHook('onClose', () => redis.disconnect());
        return app;
      });
    };
    a = await instance();
    b = await instance();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('two instances share one account limit and one count of failed key checks, through the cluster', async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) {
      const app = i % 2 === 0 ? a : b;
      codes.push((await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);

    const guess = (app: FastifyInstance, ip: string) =>
      app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody({ apiKey: 'guess' }), remoteAddress: ip });
    for (const ip of ['192.0.2.9', '198.51.100.7', '203.0.113.5']) {
      expect((await guess(a, ip)).statusCode).toBe(401);
      expect((await guess(b, ip)).statusCode).toBe(401);
      expect((await guess(a, ip)).statusCode).toBe(429);
    }
    // Counted in the cluster, not in either instance's memory fallback.
    expect(limiterErrors).toEqual([]);
    const held = await keysByMaster(prefix);
    // The counters of different keys land on different masters: the scripts ran where their slot lives.
    expect([...held.values()].filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
  });

  it('/readyz reports the cluster up', async () => {
    expect((await a.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ status: 'ready', redis: 'up' });
  });
});

describe('the review queue on a Redis Cluster: offer → ingest → console → label → export → erase', () => {
  const prefix = testPrefix('cluster-review');
  let review: Review;
  let app: FastifyInstance;
  let spool: Awaited<ReturnType<typeof tempDir>>;
  let out: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    spool = await tempDir('cluster-spool');
    out = await tempDir('cluster-labels');
    const moderators = { current: parseTenants(JSON.stringify(reviewTenantsFile()), 'test') };
    const { REDIS_URL: _, ...settings } = reviewEnv('', spool.dir, prefix);
    review = startReview({ env: { ...settings, REDIS_CLUSTER_NODES: cluster.nodes }, log: silent, moderators, registry: new Registry() });
    await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
    app = await buildApp({
      tenants: moderators,
      classifier: keywordClassifier,
      maxEventLoopDelayMs: 0,
      reviewSink: review.sink,
      reviewRoutes: review.routes,
    });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await review?.close();
    await spool?.remove();
    await out?.remove();
  });

  it('takes a spam verdict from POST /v1/verify to the console, a label, and the label files', async () => {
    const submissionIds: string[] = [];
    // Three different messages: identical ones to one account would become one campaign item, similar ones one group.
    const texts = ['Best casino bonus here', 'Free spins at the casino tonight only', 'A casino jackpot is waiting for you'];
    for (const [i, formId] of ['contact', 'newsletter', 'contact'].entries()) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: { 'content-type': 'application/json', origin: 'https://example.com' },
        payload: { apiKey: API_KEY, formId, payload: { message: `${texts[i] as string}, form ${formId}, offer ${i}` } },
      });
      expect(res.statusCode).toBe(200);
      submissionIds.push(res.json<{ submissionId: string }>().submissionId);
    }
    await review.sink.flush();
    await until(async () => (await review.store.items.counts('acme')).pending === 3, 'three items ingested');
    // Nothing went to the spool: the queue took every job.
    expect(await readdir(spool.dir).catch(() => [])).toEqual([]);

    // BullMQ's keys share one hash tag ({prefix}), as a cluster requires of a queue's scripts.
    const held = [...(await keysByMaster(`{${prefix}}:${REVIEW_QUEUE}`)).values()].flat();
    expect(held.length).toBeGreaterThan(0);
    const inspectConnection = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
    const inspect = new Queue(REVIEW_QUEUE, { connection: inspectConnection, prefix: `{${prefix}}` });
    try {
      await until(
        async () =>
          (await inspect.getJobCounts('wait', 'active', 'failed')).failed === 0 && (await inspect.getJobCounts('wait')).wait === 0,
        'queue empty',
      );
    } finally {
      await inspect.close();
      inspectConnection.disconnect();
    }

    const cookie = await signIn(app, ACME_TOKEN);
    const list = (await app.inject({ method: 'GET', url: '/review/api/list?limit=50', headers: { cookie } })).json<{
      rows: { submissionId: string }[];
    }>();
    expect(list.rows.map((i) => i.submissionId).sort()).toEqual([...submissionIds].sort());
    const filtered = (await app.inject({ method: 'GET', url: '/review/api/list?form=newsletter&status=spam', headers: { cookie } })).json<{
      rows: { submissionId: string }[];
    }>();
    expect(filtered.rows.map((i) => i.submissionId)).toEqual([submissionIds[1]]);

    const [first, second] = submissionIds;
    for (const [id, label] of [
      [first, 'legitimate'],
      [second, 'spam'],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: `/review/api/items/${id}/label`,
        headers: { ...JSON_HEADERS, cookie },
        payload: { label },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    // Undo (a script over ten keys of the account) takes the last label back.
    expect(
      (await app.inject({ method: 'POST', url: '/review/api/undo', headers: { ...JSON_HEADERS, cookie }, payload: {} })).statusCode,
    ).toBe(200);
    expect(await review.store.items.counts('acme')).toEqual({ pending: 2, labelled: 1, shed: 0 });

    expect((await exportLabels(review.store.exports, out.dir)).written).toBe(1);
    const files = await readdir(out.dir);
    const lines = (await Promise.all(files.filter((f) => f.endsWith('.jsonl')).map((f) => readFile(path.join(out.dir, f), 'utf8'))))
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { submissionId: string; label: string });
    expect(lines).toMatchObject([{ submissionId: first, label: 'legitimate' }]);
    expect((await exportLabels(review.store.exports, out.dir)).written).toBe(0);
  });

  it('keeps an unqueued submission for look-up and search, and evicts and trims within one slot', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload: { message: 'A quote for twelve walnut stools, please' } },
    });
    const id = res.json<{ submissionId: string }>().submissionId;
    await until(async () => (await review.store.items.get('acme', id))?.fieldsKept === true, 'fields kept');
    const cookie = await signIn(app, ACME_TOKEN);
    const found = (await app.inject({ method: 'GET', url: '/review/api/list?q=walnut%20stools', headers: { cookie } })).json<{
      rows: { submissionId: string; queued: boolean }[];
    }>();
    expect(found.rows).toMatchObject([{ submissionId: id, queued: false }]);
    // The account's sweep (trim scripts over its search lines and kept fields) runs on the master holding its slot.
    expect(await review.store.retention.sweep()).toBeGreaterThanOrEqual(0);
    expect(await review.store.items.get('acme', id)).toMatchObject({ fieldsKept: true });
  });

  it('erases a submission, then a whole account, on whichever master holds it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload: { message: 'Another casino offer' } },
    });
    const id = res.json<{ submissionId: string }>().submissionId;
    await review.sink.flush();
    await until(async () => (await review.store.items.get('acme', id)) !== undefined, 'item ingested');
    expect(await review.store.erasure.eraseSubmission(id)).toMatchObject([{ submissionId: id, accountId: 'acme', item: true }]);
    expect(await review.store.items.get('acme', id)).toBeUndefined();

    const before = [...(await keysByMaster(`${prefix}:review:{acme}:`)).values()].flat();
    expect(before.length).toBeGreaterThan(0);
    const erased = await review.store.erasure.eraseAccount('acme');
    expect(erased.keys).toBe(before.length);
    expect([...(await keysByMaster(`${prefix}:review:{acme}:`)).values()].flat()).toEqual([]);
    let left = 0;
    await scanKeys(client, `${prefix}:review:{acme}:*`, async (keys) => void (left += keys.length));
    expect(left).toBe(0);
  });
});
