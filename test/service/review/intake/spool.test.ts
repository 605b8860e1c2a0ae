import { readdir } from 'node:fs/promises';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import { reviewReason } from '../../../../service/review/intake/policy.ts';
import { capFields, cutUtf8 } from '../../../../service/review/intake/fields.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { fakeJob } from '../helpers.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir('spool');
});
afterEach(async () => {
  await dir.remove();
});

describe('the spool', () => {
  it('keeps jobs across a restart (a new instance on the same directory) and drains each once', async () => {
    const jobs = [fakeJob(), fakeJob(), fakeJob()];
    const first = new ReviewSpool(dir.dir, 1 << 20, silent);
    for (const j of jobs) expect(await first.append(j)).toEqual({ ok: true });
    const second = new ReviewSpool(dir.dir, 1 << 20, silent);
    const sent: string[] = [];
    expect(await second.drain(async (j) => void sent.push(j.submissionId))).toEqual({ sent: 3, skipped: 0, remaining: 0 });
    expect(sent).toEqual(jobs.map((j) => j.submissionId));
    expect(await second.drain(async (j) => void sent.push(j.submissionId))).toEqual({ sent: 0, skipped: 0, remaining: 0 });
    expect(await readdir(dir.dir)).toEqual([]);
  });

  it('keeps what a failed drain did not send, in order, and sends it next time', async () => {
    const spool = new ReviewSpool(dir.dir, 1 << 20, silent);
    const jobs = [fakeJob(), fakeJob(), fakeJob(), fakeJob()];
    for (const j of jobs) await spool.append(j);
    let calls = 0;
    const r = await spool.drain(async () => {
      if (++calls === 3) throw new Error('Redis went away');
    });
    expect(r.sent).toBe(2);
    expect(r.remaining).toBeGreaterThan(0);
    const later = fakeJob();
    await spool.append(later); // appended while the rest waits
    const sent: string[] = [];
    await spool.drain(async (j) => void sent.push(j.submissionId));
    expect(sent).toEqual([jobs[2], jobs[3], later].map((j) => j?.submissionId));
  });

  it('refuses appends past its byte bound (the sink counts those as dropped)', async () => {
    const job = fakeJob();
    const size = Buffer.byteLength(`${JSON.stringify(job)}\n`);
    const spool = new ReviewSpool(dir.dir, size * 2 + 10, silent);
    expect(await spool.append(job)).toEqual({ ok: true });
    expect(await spool.append(fakeJob())).toEqual({ ok: true });
    expect(await spool.append(fakeJob())).toEqual({ ok: false, reason: 'spool_full' });
    expect(await spool.size()).toBeLessThanOrEqual(size * 2 + 10);
  });

  it('skips jobs past retention when draining', async () => {
    const spool = new ReviewSpool(dir.dir, 1 << 20, silent);
    const old: ReviewJob = fakeJob({ receivedAt: new Date(Date.now() - 40 * 86_400_000).toISOString() });
    const fresh = fakeJob();
    await spool.append(old);
    await spool.append(fresh);
    const sent: string[] = [];
    const r = await spool.drain(
      async (j) => void sent.push(j.submissionId),
      (j) => Date.parse(j.receivedAt) > Date.now() - 30 * 86_400_000,
    );
    expect(sent).toEqual([fresh.submissionId]);
    expect(r.skipped).toBe(1);
  });
});

describe('policy, field caps and metrics', () => {
  const policy = { band: 0.75, sampleRate: 0.01 };
  it('decides what goes to review', () => {
    expect(reviewReason(fakeJob({ status: 'spam', confidence: 0.99 }), policy, () => 0.9)).toBe('spam');
    expect(reviewReason(fakeJob({ status: 'legitimate', confidence: 0.7499 }), policy, () => 0.9)).toBe('low-confidence');
    expect(reviewReason(fakeJob({ status: 'legitimate', confidence: 0.75 }), policy, () => 0.9)).toBeUndefined();
    expect(reviewReason(fakeJob({ status: 'legitimate', confidence: 0.9 }), policy, () => 0.0099)).toBe('sample');
    expect(reviewReason(fakeJob({ status: 'legitimate', confidence: 0.9 }), { band: 0.75, sampleRate: 0 }, () => 0)).toBeUndefined();
  });

  it('queues every submission the shadow model disagrees on, however confident the answer was', () => {
    const shadow = (status: 'spam' | 'legitimate') => ({ status, confidence: 0.8, modelVersion: 'shadow-1' });
    expect(reviewReason(fakeJob({ status: 'legitimate', confidence: 0.99, shadow: shadow('spam') }), policy, () => 0.9)).toBe(
      'disagreement',
    );
    expect(reviewReason(fakeJob({ status: 'spam', confidence: 0.99, shadow: shadow('legitimate') }), policy, () => 0.9)).toBe(
      'disagreement',
    );
    // Agreement changes nothing: a confident legitimate verdict stays out of review.
    expect(
      reviewReason(fakeJob({ status: 'legitimate', confidence: 0.99, shadow: shadow('legitimate') }), policy, () => 0.9),
    ).toBeUndefined();
  });

  it('cuts fields at a character boundary and flags it', () => {
    expect(cutUtf8('😀😀😀', 9)).toBe('😀😀');
    expect(capFields({ a: 'short', b: 'x'.repeat(20) }, 10)).toEqual({
      fields: { a: 'short', b: 'x'.repeat(10) },
      truncated: true,
      cut: ['b'],
    });
    expect(capFields({ a: 'short', n: { x: 1 } }, 10)).toEqual({ fields: { a: 'short', n: { x: 1 } }, truncated: false, cut: [] });
    // Each field cut is named (as kept), whether its value or its name was too long, so the console can mark it.
    expect(capFields({ ['k'.repeat(20)]: 'v', n: { x: 'y'.repeat(20) } }, 10).cut).toEqual(['k'.repeat(10), 'n']);
  });

  it('keeps a field nested 30,000 levels deep as a cut value instead of losing the item', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 30_000; i++) deep = [deep];
    const { fields, truncated, cut } = capFields({ message: 'buy now', zz: deep }, 4096);
    expect(truncated).toBe(true);
    expect(cut).toEqual(['zz']);
    expect(fields.message).toBe('buy now');
    expect(JSON.stringify(fields)).toContain('[nested too deep: not kept]');
  });

  it('registers its counters once per registry', () => {
    const registry = new Registry();
    const a = reviewMetrics(registry);
    const b = reviewMetrics(registry);
    a.dropped.inc({ reason: 'spool_full' });
    expect(b.dropped).toBe(a.dropped);
    expect(registry.getSingleMetric('formguard_review_queued_total')).toBeDefined();
  });
});

describe('the sink while Redis is unreachable', () => {
  it('spools flagged jobs and counts the ones a full spool drops', async () => {
    const { EventEmitter } = await import('node:events');
    const { QueueReviewSink } = await import('../../../../service/review/intake/sink.ts');
    const registry = new Registry();
    const metrics = reviewMetrics(registry);
    const { reviewDecision } = await import('../../../../service/review/intake/policy.ts');
    // As the sink spools it: with why it was queued.
    const probe = { ...fakeJob(), queued: reviewDecision(fakeJob(), { band: 0.75, sampleRate: 0 }) };
    const lineSize = Buffer.byteLength(`${JSON.stringify(probe)}\n`);
    const spool = new ReviewSpool(dir.dir, lineSize * 2 + 20, silent);
    const connection = Object.assign(new EventEmitter(), { status: 'reconnecting' });
    const sink = new QueueReviewSink({
      queue: {} as never, // never reached: the connection is down
      ingest: () => Promise.reject(new Error('never reached: the connection is down')),
      connection: connection as never,
      spool,
      policy: { band: 0.75, sampleRate: 0 },
      maxFieldBytes: 4096,
      retentionMs: 30 * 86_400_000,
      metrics,
      log: silent,
    });
    sink.offer(fakeJob({ status: 'legitimate', confidence: 0.99 })); // not flagged
    for (let i = 0; i < 3; i++) sink.offer(fakeJob());
    await sink.close();
    const value = async (c: { get(): Promise<{ values: { value: number }[] }> }) => (await c.get()).values[0]?.value;
    expect(await value(metrics.spooled)).toBe(2);
    expect(await value(metrics.dropped)).toBe(1);
    expect(await value(metrics.queued)).toBe(0);
  });
});
