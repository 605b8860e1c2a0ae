import { EventEmitter } from 'node:events';
import type { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../../service/config/redis-target.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { QueueReviewSink } from '../../../../service/review/intake/sink.ts';
import { ReviewSpool, type AppendResult } from '../../../../service/review/intake/spool.ts';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import { captureLines, silent } from '../../../support/logs.ts';
import { fakeJob } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';

// Redis down throughout (the connection never ready): every flagged job goes to the spool, and whatever cannot is
// counted, never lost unsaid.
const down = Object.assign(new EventEmitter(), { status: 'end' }) as unknown as RedisClient;
const noQueue = {} as Queue<ReviewJob>;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function metric(registry: Registry, name: string, reason?: string): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values.find((v) => reason === undefined || v.labels.reason === reason)?.value ?? NaN;
}

function sink(spool: ReviewSpool, registry: Registry, extra: Partial<ConstructorParameters<typeof QueueReviewSink>[0]> = {}) {
  return new QueueReviewSink({
    queue: noQueue,
    ingest: () => Promise.reject(new Error('never reached: Redis is down')),
    connection: down,
    spool,
    policy: { band: 1, sampleRate: 1 },
    maxFieldBytes: 2048,
    retentionMs: 86_400_000,
    metrics: reviewMetrics(registry),
    log: silent,
    ...extra,
  });
}

describe('the review sink with Redis down', () => {
  it('spools a burst in batches, and counts what is past the in-memory bound as backlog_full', async () => {
    const dir = await tempDir('sink-bounds');
    cleanups.push(dir.remove);
    const spool = new ReviewSpool(dir.dir, 8 * 1024 * 1024, silent);
    const writes: number[] = [];
    const appendMany = spool.appendMany.bind(spool);
    spool.appendMany = (jobs) => {
      writes.push(jobs.length);
      return appendMany(jobs);
    };
    const registry = new Registry();
    const s = sink(spool, registry, { maxWaiting: 300 });
    for (let i = 0; i < 400; i++) s.offer(fakeJob());
    await s.close();
    expect(await metric(registry, 'formguard_review_spooled_total')).toBe(300);
    expect(await metric(registry, 'formguard_review_dropped_total', 'backlog_full')).toBe(100);
    // A few writes (one fsync each), not 300.
    expect(writes.length).toBeLessThan(10);
    expect((await spool.size()) > 0).toBe(true);
  });

  it('counts and logs every job still in memory when the shutdown deadline comes', async () => {
    const dir = await tempDir('sink-deadline');
    cleanups.push(dir.remove);
    const spool = new ReviewSpool(dir.dir, 8 * 1024 * 1024, silent);
    // A disk that never finishes a write.
    spool.appendMany = () => new Promise<AppendResult[]>(() => undefined);
    const registry = new Registry();
    const lines = captureLines();
    const s = sink(spool, registry, { log: lines.logger });
    for (let i = 0; i < 50; i++) s.offer(fakeJob());
    await until(() => s.waiting === 50, 'jobs offered');
    await s.close(Date.now() + 200);
    expect(await metric(registry, 'formguard_review_dropped_total', 'shutdown')).toBe(50);
    const line = JSON.parse(
      lines
        .text()
        .split('\n')
        .find((l) => l.includes('dropped at shutdown')) ?? '{}',
    ) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 50, reason: 'shutdown', dropped: 50 });
    expect(JSON.stringify(line)).not.toMatch(/Message number/);
  });

  it('counts the verdicts it does not keep for look-up while Redis is down', async () => {
    const dir = await tempDir('sink-lookup');
    cleanups.push(dir.remove);
    const registry = new Registry();
    let kept = 0;
    const s = sink(new ReviewSpool(dir.dir, 1024 * 1024, silent), registry, {
      policy: { band: 0, sampleRate: 0 },
      remember: async () => {
        kept++;
      },
    });
    for (let i = 0; i < 7; i++) expect(s.offer(fakeJob({ status: 'legitimate', confidence: 0.99 }))).toBeUndefined();
    await s.close();
    expect(kept).toBe(0);
    expect(await metric(registry, 'formguard_review_lookup_skipped_total')).toBe(7);
  });
});
