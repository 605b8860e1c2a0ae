import { EventEmitter } from 'node:events';
import type { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../../service/config/redis-target.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { INGEST_BATCH_JOBS, QueueReviewSink } from '../../../../service/review/intake/sink.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { fakeJob } from '../helpers.ts';

// Redis up: the jobs flagged within one event-loop turn go to the review store together (ingest), at most
// INGEST_BATCH_JOBS per call and one call at a time; a batch Redis refuses goes to the spool whole, and the spool's
// replays go through the queue, one job each, its submissionId as job id.
const up = Object.assign(new EventEmitter(), { status: 'ready' }) as unknown as RedisClient;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function metric(registry: Registry, name: string): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values[0]?.value ?? NaN;
}

/** A queue that records each addBulk call's job ids (and has no single add: a replay must go through addBulk too). */
function recordingQueue() {
  const calls: string[][] = [];
  const queue = {
    addBulk: async (jobs: { name: string; data: ReviewJob; opts: { jobId?: string } }[]) => {
      calls.push(jobs.map((j) => j.opts.jobId ?? ''));
      return [];
    },
  } as unknown as Queue<ReviewJob>;
  return { queue, calls };
}

async function sinkWith(queue: Queue<ReviewJob>, registry: Registry, ingest: (jobs: readonly ReviewJob[]) => Promise<unknown>) {
  const dir = await tempDir('sink-batch');
  cleanups.push(dir.remove);
  const spool = new ReviewSpool(dir.dir, 8 * 1024 * 1024, silent);
  const sink = new QueueReviewSink({
    queue,
    connection: up,
    spool,
    policy: { band: 1, sampleRate: 1 },
    maxFieldBytes: 2048,
    retentionMs: 86_400_000,
    metrics: reviewMetrics(registry),
    log: silent,
    drainIntervalMs: 3_600_000,
    ingest,
  });
  // The start-up drain (of an empty spool) is over before the test spools anything.
  await sink.drain();
  return { sink, spool };
}

describe('the review sink storing flagged jobs directly', () => {
  it('stores the jobs flagged in one turn in batches of at most INGEST_BATCH_JOBS, each job once and in order, none through the queue', async () => {
    const { queue, calls: added } = recordingQueue();
    const calls: string[][] = [];
    const ingest = async (jobs: readonly ReviewJob[]) => void calls.push(jobs.map((j) => j.submissionId));
    const registry = new Registry();
    const { sink, spool } = await sinkWith(queue, registry, ingest);
    const n = 2 * INGEST_BATCH_JOBS + 5;
    const ids = Array.from({ length: n }, () => {
      const job = fakeJob();
      expect(sink.offer(job)).toBeDefined();
      return job.submissionId;
    });
    await sink.close();
    expect(calls.map((c) => c.length)).toEqual([INGEST_BATCH_JOBS, INGEST_BATCH_JOBS, 5]);
    expect(calls.flat()).toEqual(ids);
    expect(added).toEqual([]);
    expect(await metric(registry, 'formguard_review_queued_total')).toBe(n);
    expect(await metric(registry, 'formguard_review_spooled_total')).toBe(0);
    expect(await spool.size()).toBe(0);
  });

  it('stores one batch at a time; jobs flagged meanwhile go together in the next, INGEST_BATCH_JOBS at most, none through the queue', async () => {
    const { queue, calls: added } = recordingQueue();
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const ingest = async (jobs: readonly ReviewJob[]) => {
      calls.push(jobs.map((j) => j.submissionId));
      // The first batch is held until the test lets it go: Redis busy with it.
      if (calls.length === 1) await new Promise<void>((r) => (release = r));
    };
    const registry = new Registry();
    const { sink } = await sinkWith(queue, registry, ingest);
    const first = fakeJob();
    sink.offer(first);
    while (calls.length === 0) await new Promise((r) => setImmediate(r));
    const later = Array.from({ length: INGEST_BATCH_JOBS + 3 }, () => fakeJob());
    for (const job of later) sink.offer(job);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(calls.length).toBe(1);
    release();
    await sink.close();
    expect(calls.map((c) => c.length)).toEqual([1, INGEST_BATCH_JOBS, 3]);
    expect(calls.flat()).toEqual([first, ...later].map((j) => j.submissionId));
    expect(added).toEqual([]);
    expect(await metric(registry, 'formguard_review_queued_total')).toBe(INGEST_BATCH_JOBS + 4);
  });

  it('spools every job of a batch the store refuses, counts none as queued, and replays each once through the queue', async () => {
    const { queue, calls: added } = recordingQueue();
    const calls: string[][] = [];
    const ingest = (jobs: readonly ReviewJob[]) => {
      calls.push(jobs.map((j) => j.submissionId));
      return Promise.reject(new Error('OOM command not allowed when used memory > maxmemory'));
    };
    const registry = new Registry();
    const { sink, spool } = await sinkWith(queue, registry, ingest);
    const ids = Array.from({ length: 10 }, () => {
      const job = fakeJob();
      sink.offer(job);
      return job.submissionId;
    });
    await sink.flush();
    expect(calls).toEqual([ids]);
    expect(await metric(registry, 'formguard_review_queued_total')).toBe(0);
    expect(await metric(registry, 'formguard_review_spooled_total')).toBe(10);
    expect(await spool.size()).toBeGreaterThan(0);
    expect(added).toEqual([]);

    // The spool's replay: one queue job each, its submissionId as job id, every spooled job once.
    await sink.drain();
    await sink.close();
    expect(added).toEqual(ids.map((id) => [id]));
    expect(await metric(registry, 'formguard_review_queued_total')).toBe(10);
    expect(await spool.size()).toBe(0);
  });
});
