import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../../service/config/redis-target.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { reviewQueue } from '../../../../service/review/intake/queue.ts';
import { QueueReviewSink } from '../../../../service/review/intake/sink.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import type { StoreOptions } from '../../../../service/review/store/context.ts';
import { AT_CAPS_FOR_MS } from '../../../../service/review/store/items.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { SCRIPTS } from '../../../../service/review/store/scripts.ts';
import { silent } from '../../../support/logs.ts';
import { REDIS_URL, useTestRedis } from '../../../support/redis.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';
import { fakeJob } from '../helpers.ts';
import { floodFields } from '../near-flood.ts';

// At an account's full queue, the spam verdicts the model was surest of go first; a new one at least as sure as every
// pending one is not stored (it would be the first evicted) but counted and kept for look-up, decided in process while
// the last ingest's answer is fresh.
const keys = useTestRedis('full-queue');
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A connection whose ingest script calls are counted. */
function countingRedis(): { client: RedisClient; ingestCalls: () => number } {
  const client = new Redis(REDIS_URL);
  cleanups.push(async () => client.disconnect());
  let calls = 0;
  const evalsha = client.evalsha.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const evalLua = client.eval.bind(client) as (...args: unknown[]) => Promise<unknown>;
  Object.assign(client, {
    evalsha: (sha: string, ...rest: unknown[]) => (sha === SCRIPTS.ingestBatch.sha && calls++, evalsha(sha, ...rest)),
    eval: (lua: string, ...rest: unknown[]) => (lua === SCRIPTS.ingestBatch.lua && calls++, evalLua(lua, ...rest)),
  });
  return { client: client as unknown as RedisClient, ingestCalls: () => calls };
}

/** Ten words of random letters: no two texts share a template (none grouped, none merged). */
function distinctText(): string {
  const letter = () => String.fromCharCode(97 + randomInt(26));
  return Array.from({ length: 10 }, () => Array.from({ length: 6 }, letter).join('')).join(' ');
}

/** A spam verdict queued for being spam, as the sink hands it to the store. */
function spam(confidence: number, over: Partial<ReviewJob> = {}): ReviewJob {
  return fakeJob({ confidence, queued: { reason: 'spam', probability: 1 }, fields: { message: distinctText() }, ...over });
}

function newStore(opts: Partial<StoreOptions> = {}) {
  const { client, ingestCalls } = countingRedis();
  let t = Date.now();
  const counted = { shed: 0, evicted: 0 };
  const store = new ReviewStore(client, {
    prefix: keys.prefix(),
    retentionDays: 30,
    keepFieldsDays: 3,
    maxPending: 3,
    now: () => t,
    onShed: (n) => (counted.shed += n),
    onEvicted: (n) => (counted.evicted += n),
    ...opts,
  });
  const pendingIds = async () => (await store.items.listPending('acme', {}, 0, 50)).map((j) => j.submissionId).sort();
  return { store, ingestCalls, counted, pendingIds, advance: (ms: number) => (t += ms) };
}

const ids = (...jobs: ReviewJob[]) => jobs.map((j) => j.submissionId).sort();

describe('an account at its pending cap', () => {
  it('does not store a spam verdict surer than every pending one: counted, and kept for look-up; a less sure one gets in and evicts the surest', async () => {
    const { store, counted, pendingIds } = newStore();
    const [a, b, c] = [spam(0.9), spam(0.95), spam(0.97)];
    for (const job of [a, b, c]) expect(await store.items.ingest(job)).toBe('stored');

    const surer = spam(0.99);
    expect(await store.items.ingest(surer)).toBe('shed');
    const asSure = spam(0.97);
    expect(await store.items.ingest(asSure)).toBe('shed');
    expect(await pendingIds()).toEqual(ids(a, b, c));
    // Found by a look-up (fields kept, findable to report as a miss), not as a queued item.
    for (const job of [surer, asSure])
      expect(await store.items.get('acme', job.submissionId)).toMatchObject({ queued: false, fieldsKept: true });
    expect(await store.items.counts('acme')).toEqual({ pending: 3, labelled: 0, shed: 2 });
    expect(counted).toEqual({ shed: 2, evicted: 0 });

    const lessSure = spam(0.93);
    expect(await store.items.ingest(lessSure)).toBe('stored');
    expect(await pendingIds()).toEqual(ids(a, b, lessSure));
    expect(await store.items.get('acme', c.submissionId)).toBeUndefined();
    expect(counted).toEqual({ shed: 2, evicted: 1 });
  });

  it('never sheds a disagreement, a low-confidence legitimate or a sampled verdict, and evicts the surest spam for each, not a disagreement', async () => {
    const { store, counted, pendingIds } = newStore();
    const disagreement = fakeJob({
      confidence: 0.999,
      queued: { reason: 'disagreement', probability: 1 },
      shadow: { status: 'legitimate', confidence: 0.8, modelVersion: 'shadow-1' },
      fields: { message: distinctText() },
    });
    // The disagreement is the oldest and the surest spam verdict pending: neither rule alone would keep it.
    const [a, b] = [spam(0.9), spam(0.95)];
    for (const job of [disagreement, a, b]) expect(await store.items.ingest(job)).toBe('stored');
    const unsure = fakeJob({ status: 'legitimate', confidence: 0.6, queued: { reason: 'low-confidence', probability: 1 } });
    const sampled = fakeJob({ status: 'legitimate', confidence: 0.97, queued: { reason: 'sample', probability: 0.01 } });
    const another = fakeJob({ ...disagreement, submissionId: spam(0.9999).submissionId, fields: { message: distinctText() } });
    for (const job of [unsure, sampled]) expect(await store.items.ingest(job)).toBe('stored');
    expect(await pendingIds()).toEqual(ids(disagreement, unsure, sampled));
    // At the full queue, with no other spam verdict pending, a new disagreement still gets in (it is never shed).
    expect(await store.items.ingest(another)).toBe('stored');
    expect(counted).toEqual({ shed: 0, evicted: 3 });
  });

  it('decides in process from the last ingest’s bar, which each answer refreshes and which expires so a drained queue takes spam again', async () => {
    const { store, ingestCalls, pendingIds, advance } = newStore();
    const [a, b, c] = [spam(0.9), spam(0.95), spam(0.97)];
    for (const job of [a, b, c]) await store.items.ingest(job);
    const d = spam(0.93);
    expect(await store.items.ingest(d)).toBe('stored'); // evicts c: the bar is now b's 0.95
    const calls = ingestCalls();

    // At or above the refreshed bar: shed without a script call.
    expect(await store.items.ingest(spam(0.96))).toBe('shed');
    expect(await store.items.ingest(spam(0.95))).toBe('shed');
    expect(ingestCalls()).toBe(calls);
    // Under it: stored (a call), evicting b; that answer's bar is its own 0.94.
    const e = spam(0.94);
    expect(await store.items.ingest(e)).toBe('stored');
    expect(await pendingIds()).toEqual(ids(a, d, e));
    expect(await store.items.ingest(spam(0.94))).toBe('shed');
    expect(ingestCalls()).toBe(calls + 1);

    // A moderator labels one: the queue has room, and once the bar expires the surest spam gets in again.
    await store.labels.label('acme', a.submissionId, 'spam', 'alice');
    advance(AT_CAPS_FOR_MS);
    const f = spam(0.99);
    expect(await store.items.ingest(f)).toBe('stored');
    expect(await pendingIds()).toEqual(ids(d, e, f));
    expect((await store.items.counts('acme')).shed).toBe(3);
  });
});

describe('the sink at a full queue', () => {
  it('counts every flagged submission as queued or shed, keeps each shed one for look-up, and /metrics and the console say how many', async () => {
    const { client } = countingRedis();
    await client.ping();
    const prefix = keys.prefix();
    const queue = reviewQueue(client, prefix);
    cleanups.push(() => queue.close());
    const dir = await tempDir('full-queue');
    cleanups.push(dir.remove);
    const registry = new Registry();
    const metrics = reviewMetrics(registry);
    // The store counts into the service's metrics as setup.ts wires it.
    const sinkStore = new ReviewStore(client, {
      prefix,
      retentionDays: 30,
      keepFieldsDays: 3,
      maxPending: 30,
      onShed: (n) => metrics.shed.inc({ reason: 'queue_full' }, n),
      onEvicted: (n) => metrics.evicted.inc(n),
    });
    const sink = new QueueReviewSink({
      queue,
      connection: client,
      spool: new ReviewSpool(dir.dir, 8 * 1024 * 1024, silent),
      policy: { band: 0.75, sampleRate: 0 },
      maxFieldBytes: 2048,
      retentionMs: sinkStore.retentionMs,
      metrics,
      log: silent,
      drainIntervalMs: 3_600_000,
      remember: (job) => sinkStore.items.remember(job),
      ingest: (jobs) => sinkStore.items.ingestMany(jobs),
    });
    cleanups.push(() => sink.close());
    const metric = async (name: string) =>
      (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values.reduce((a, v) => a + v.value, 0);

    // A flood of spam, the model surer as it goes on, with some unsure legitimate ones among it: in several turns.
    const flagged: ReviewJob[] = [];
    for (let turn = 0; turn < 6; turn++) {
      for (let i = 0; i < 20; i++) {
        const job =
          i % 5 === 4
            ? fakeJob({ status: 'legitimate', confidence: 0.6, fields: { message: distinctText() } })
            : fakeJob({ confidence: 0.9 + (turn * 20 + i) / 2000, fields: { message: distinctText() } });
        expect(sink.offer(job)).toBeDefined();
        flagged.push(job);
      }
      await sink.flush();
    }
    const shed = (await metric('formguard_review_shed_total')) ?? 0;
    const queued = (await metric('formguard_review_queued_total')) ?? 0;
    expect(shed).toBeGreaterThan(0);
    expect(queued + shed).toBe(flagged.length);
    expect(await metric('formguard_review_dropped_total')).toBe(0);
    expect(await metric('formguard_review_spooled_total')).toBe(0);
    expect((await sinkStore.items.counts('acme')).shed).toBe(shed);

    // Every flagged submission is pending, evicted (counted) or kept for look-up (each shed one, once its write is done).
    const where = async () => {
      const found = { pending: 0, kept: 0 };
      for (const job of flagged) {
        const entry = await sinkStore.items.get('acme', job.submissionId);
        if (entry?.queued === true) found.pending++;
        else if (entry?.fieldsKept === true) found.kept++;
      }
      return found;
    };
    await until(async () => (await where()).kept === shed, 'every shed submission kept for look-up');
    const { pending } = await where();
    expect(pending + shed + ((await metric('formguard_review_evicted_total')) ?? 0)).toBe(flagged.length);
    expect(await metric('formguard_review_lookup_skipped_total')).toBe(0);
    // The low-confidence legitimate ones were all stored and are still pending (spam verdicts made room for them).
    for (const job of flagged.filter((j) => j.verdict.status === 'legitimate'))
      expect(await sinkStore.items.get('acme', job.submissionId)).toMatchObject({ queued: true });
  });
});

describe('an account at its near-duplicate member cap', () => {
  it('stores similar submissions as rows while at it, and groups again once its members leave at retention', async () => {
    const retentionMs = 86_400_000;
    const { store, advance } = newStore({ maxPending: 0, retentionDays: 1, campaignWindowMs: 600_000, nearMembersMax: 2 });
    const similar = (i: number, receivedAt = new Date(Date.now() + i).toISOString()) => fakeJob({ fields: floodFields(i), receivedAt });
    // Two members close to the end of retention (their items live a minute more), then the cap is full.
    const leader = similar(0);
    expect(await store.items.ingest(leader)).toBe('stored');
    const old = new Date(Date.now() - retentionMs + 60_000).toISOString();
    for (const i of [1, 2]) expect(await store.items.ingest(similar(i, old))).toBe('grouped');
    for (const i of [3, 4, 5]) expect(await store.items.ingest(similar(i))).toBe('stored');

    // Submissions every second: the grouping step is left out, but still run every AT_CAPS_FOR_MS, so once the two are
    // past retention they leave and a similar submission is grouped again.
    const results: string[] = [];
    for (let i = 6; i < 76; i++) {
      advance(1_000);
      results.push(await store.items.ingest(similar(i)));
    }
    expect(results.slice(0, 55)).toEqual(Array(55).fill('stored'));
    expect(results).toContain('grouped');
  });
});
