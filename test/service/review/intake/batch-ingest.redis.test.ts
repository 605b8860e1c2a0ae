import type { Worker } from 'bullmq';
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../../service/config/redis-target.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ingestWorker, reviewQueue } from '../../../../service/review/intake/queue.ts';
import { QueueReviewSink } from '../../../../service/review/intake/sink.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { SCRIPTS } from '../../../../service/review/store/scripts.ts';
import { silent } from '../../../support/logs.ts';
import { REDIS_URL, useTestRedis } from '../../../support/redis.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';
import { fakeJob } from '../helpers.ts';

// Flagged submissions go from the sink to the review store in batches: the jobs of one turn in one script call per
// account; a batch Redis refuses goes to the spool whole, and its replay (through the queue) stores each job once.
const keys = useTestRedis('batch-ingest');
const cleanups: Array<() => Promise<unknown>> = [];
// Registered after useTestRedis's, so it runs before the keys are deleted (after-hooks run last registered first).
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The connection with its script calls counted by script, as Redis would see them (EVALSHA and the EVAL fallback). */
function countingRedis(): { client: RedisClient; calls: Map<string, number> } {
  const client = new Redis(REDIS_URL);
  cleanups.push(async () => client.disconnect());
  const calls = new Map<string, number>();
  const evalsha = client.evalsha.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const evalLua = client.eval.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const count = (sha: string) => calls.set(sha, (calls.get(sha) ?? 0) + 1);
  Object.assign(client, {
    evalsha: (sha: string, ...rest: unknown[]) => (count(sha), evalsha(sha, ...rest)),
    eval: (lua: string, ...rest: unknown[]) => {
      const script = Object.values(SCRIPTS).find((s) => s.lua === lua);
      if (script !== undefined) count(script.sha);
      return evalLua(lua, ...rest);
    },
  });
  return { client: client as unknown as RedisClient, calls };
}

/** Ten words of random letters: no two such texts share a template, so none is grouped with another. */
function distinctText(): string {
  const letter = () => String.fromCharCode(97 + randomInt(26));
  return Array.from({ length: 10 }, () => Array.from({ length: 6 }, letter).join('')).join(' ');
}

async function setup(ingest?: (store: ReviewStore, jobs: readonly ReviewJob[]) => Promise<unknown>) {
  const prefix = keys.prefix();
  const { client, calls } = countingRedis();
  // The sink spools while its connection is not ready yet.
  await client.ping();
  const store = new ReviewStore(client, { prefix, retentionDays: 30, keepFieldsDays: 3 });
  const queue = reviewQueue(client, prefix);
  cleanups.push(() => queue.close());
  const dir = await tempDir('batch-ingest');
  cleanups.push(dir.remove);
  const spool = new ReviewSpool(dir.dir, 8 * 1024 * 1024, silent);
  const registry = new Registry();
  const sink = new QueueReviewSink({
    queue,
    connection: client,
    spool,
    policy: { band: 0.75, sampleRate: 0 },
    maxFieldBytes: 2048,
    retentionMs: store.retentionMs,
    metrics: reviewMetrics(registry),
    log: silent,
    drainIntervalMs: 3_600_000,
    remember: (job) => store.items.remember(job),
    ingest: (jobs) => (ingest ?? ((s, j) => s.items.ingestMany(j)))(store, jobs),
  });
  cleanups.push(() => sink.close());
  const metric = async (name: string) => (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values[0]?.value;
  return { store, sink, spool, queue, calls, prefix, metric };
}

describe('flagged submissions in Redis mode', () => {
  it('offered in one turn, reach the store in one script call and are each listed pending once', async () => {
    const { store, sink, calls, metric } = await setup();
    // Distinct texts, as real traffic: none merges into another's campaign or group.
    const jobs = Array.from({ length: 40 }, () => fakeJob({ fields: { message: distinctText() } }));
    for (const job of jobs) sink.offer(job);
    await sink.flush();

    expect(calls.get(SCRIPTS.ingestBatch.sha)).toBe(2); // 40 jobs: INGEST_BATCH (32) per call
    const pending = await store.items.listPending('acme', {}, 0, 100);
    expect(pending.map((p) => p.submissionId).sort()).toEqual(jobs.map((j) => j.submissionId).sort());
    expect(await metric('formguard_review_queued_total')).toBe(40);
    expect(await metric('formguard_review_spooled_total')).toBe(0);
  });

  it('not queued, offered in one turn, are kept for look-up with one script call', async () => {
    const { store, sink, calls } = await setup();
    const jobs = Array.from({ length: 25 }, () => fakeJob({ status: 'legitimate', confidence: 0.97 }));
    for (const job of jobs) expect(sink.offer(job)).toBeUndefined();
    await until(async () => (await store.items.get('acme', jobs.at(-1)?.submissionId ?? '')) !== undefined, 'last one kept');

    expect(calls.get(SCRIPTS.remember.sha)).toBe(1);
    for (const job of jobs) expect(await store.items.get('acme', job.submissionId)).toMatchObject({ queued: false, fieldsKept: true });
  });

  it('in a batch Redis refuses, go to the spool whole and are stored once each when it is replayed', async () => {
    let refuse = true;
    const { store, sink, spool, queue, prefix, metric } = await setup(async (s, jobs) => {
      if (!refuse) return s.items.ingestMany(jobs);
      // Redis stored part of the batch before refusing the rest: the replay must not store those twice.
      await s.items.ingestMany(jobs.slice(0, 5));
      throw new Error('OOM command not allowed when used memory > maxmemory');
    });
    const jobs = Array.from({ length: 12 }, (_, i) => fakeJob({ fields: { message: `Distinct message ${i} ${prefix}` } }));
    for (const job of jobs) sink.offer(job);
    await sink.flush();
    expect(await metric('formguard_review_spooled_total')).toBe(12);
    expect(await metric('formguard_review_queued_total')).toBe(0);
    expect(await spool.size()).toBeGreaterThan(0);

    // Redis takes writes again: the spool goes through the queue, whose worker stores each job.
    refuse = false;
    const workerRedis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const worker: Worker<ReviewJob> = ingestWorker(workerRedis as unknown as RedisClient, prefix, store, silent);
    cleanups.push(async () => {
      await worker.close();
      workerRedis.disconnect();
    });
    await sink.drain();
    expect(await spool.size()).toBe(0);
    expect(await metric('formguard_review_queued_total')).toBe(12);
    await until(async () => (await store.items.counts('acme')).pending === 12, 'every job stored');
    await until(async () => (await queue.getJobCounts('wait', 'active')).wait === 0, 'queue empty');
    const pending = await store.items.listPending('acme', {}, 0, 100);
    expect(pending.map((p) => p.submissionId).sort()).toEqual(jobs.map((j) => j.submissionId).sort());
    expect(await metric('formguard_review_dropped_total')).toBe(0);
  });
});
