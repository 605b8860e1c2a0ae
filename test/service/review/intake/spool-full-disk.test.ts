import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewMetrics } from '../../../../service/review/metrics.ts';
import { QueueReviewSink } from '../../../../service/review/intake/sink.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { captureLines, silent } from '../../../support/logs.ts';
import { fakeJob } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const run = promisify(execFile);

// A real full disk: a 64 KiB tmpfs (needs root). Without one, the test says why it did not run.
let mountPoint: string | undefined;
let noMount = '';
beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'fg-spool-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    mountPoint = dir;
  } catch (err) {
    noMount = `cannot mount a tmpfs here (${(err as Error).message.split('\n')[0]}): needs root`;
    await rmdir(dir);
  }
});
afterAll(async () => {
  if (mountPoint === undefined) return;
  await run('umount', [mountPoint]);
  await rmdir(mountPoint);
});

async function counter(registry: Registry, name: string, labels = ''): Promise<number> {
  const text = await registry.getSingleMetricAsString(name);
  return Number(new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
}

describe('the spool on a disk that fills up', () => {
  it('keeps every job it reports spooled whole, counts the rest as dropped with the reason, and logs without content', async (ctx) => {
    if (mountPoint === undefined) return ctx.skip(noMount);
    const spoolDir = path.join(mountPoint, 'spool');
    // Space freed later, after the disk has been full.
    const filler = path.join(mountPoint, 'filler');
    await writeFile(filler, Buffer.alloc(12 * 1024));
    const registry = new Registry();
    const metrics = reviewMetrics(registry);
    const log = captureLines();
    const spool = new ReviewSpool(spoolDir, 1 << 20, log.logger);
    const sink = new QueueReviewSink({
      queue: {} as never, // never reached: Redis is down
      ingest: () => Promise.reject(new Error('never reached: Redis is down')),
      connection: Object.assign(new EventEmitter(), { status: 'reconnecting' }) as never,
      spool,
      policy: { band: 0.75, sampleRate: 0 },
      maxFieldBytes: 4096,
      retentionMs: 30 * 86_400_000,
      metrics,
      log: log.logger,
    });
    const secret = 'CONFIDENTIAL-SUBMITTED-TEXT';
    const offered = new Set<string>();
    for (let i = 0; i < 120; i++) {
      // Lengths that do not divide the page size, so writes straddle the last free page.
      const job = fakeJob({ fields: { message: `${secret} ${'x'.repeat(700 + ((i * 37) % 300))}` } });
      offered.add(job.submissionId);
      sink.offer(job);
    }
    await sink.flush();
    const spooled = await counter(registry, 'formguard_review_spooled_total');
    const failed = await counter(registry, 'formguard_review_dropped_total', '{reason="write_failed"}');
    expect(spooled).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(spooled + failed).toBe(120);

    // Space comes back; the next job must not land on a torn line.
    await unlink(filler);
    const after = fakeJob();
    expect(await spool.append(after)).toEqual({ ok: true });
    const sent: string[] = [];
    const drained = await spool.drain(async (j) => void sent.push(j.submissionId));
    expect(drained).toEqual({ sent: spooled + 1, skipped: 0, remaining: 0 });
    expect(sent.at(-1)).toBe(after.submissionId);
    expect(sent.slice(0, -1).every((id) => offered.has(id))).toBe(true);
    await sink.close();

    const text = log.text();
    expect(text).not.toContain(secret);
    // Rate-limited: one line for the burst, carrying the count, not one per job.
    const lines = text.split('\n').filter((l) => l.includes('jobs dropped'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"reason":"write_failed"');
    await rm(spoolDir, { recursive: true, force: true });
  });
});

describe('a torn tail left by a crash', () => {
  it('is cut before the next append, so the job after it is read whole', async () => {
    const dir = await tempDir('spool-torn');
    try {
      const first = fakeJob();
      const torn = JSON.stringify(fakeJob()).slice(0, 80); // a write the crash cut short: never reported spooled
      await writeFile(path.join(dir.dir, 'review-spool.jsonl'), `${JSON.stringify(first)}\n${torn}`);
      const spool = new ReviewSpool(dir.dir, 1 << 20, silent);
      const next = fakeJob();
      expect(await spool.append(next)).toEqual({ ok: true });
      expect((await readFile(path.join(dir.dir, 'review-spool.jsonl'), 'utf8')).endsWith(`${JSON.stringify(next)}\n`)).toBe(true);
      const sent: string[] = [];
      expect(await spool.drain(async (j) => void sent.push(j.submissionId))).toEqual({ sent: 2, skipped: 0, remaining: 0 });
      expect(sent).toEqual([first.submissionId, next.submissionId]);
    } finally {
      await dir.remove();
    }
  });
});
