import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_LOCK, ExportBusyError, exportLabels, exportLine } from '../../service/review/export-labels.ts';
import { ReviewStore } from '../../service/review/store.ts';
import { latestLabels, loadJsonl } from '../../training/data/loaders.ts';
import { deleteKeys, fakeJob, REDIS_URL, tempDir, testPrefix } from './helpers.ts';

const redis = new Redis(REDIS_URL);
const prefixes: string[] = [];
let store: ReviewStore;
let out: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  const prefix = testPrefix('export');
  prefixes.push(prefix);
  store = new ReviewStore(redis, { prefix, retentionDays: 30 });
  out = await tempDir('labels');
  return () => out.remove();
});

afterAll(async () => {
  for (const p of prefixes) await deleteKeys(redis, p);
  redis.disconnect();
});

async function lines(dir: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (const name of (await readdir(dir)).sort()) {
    expect(name).toMatch(/^\d{4}-\d{2}-\d{2}\.jsonl$/);
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) if (line !== '') all.push(JSON.parse(line) as Record<string, unknown>);
  }
  return all;
}

describe('labels:export', () => {
  it('writes each label once, in the training shape, across accounts; a second run adds nothing', async () => {
    const a = fakeJob({ accountId: 'acme', status: 'spam', confidence: 0.8 });
    const b = fakeJob({ accountId: 'acme', status: 'legitimate', confidence: 0.6 });
    const c = fakeJob({ accountId: 'globex' });
    const unlabelled = fakeJob({ accountId: 'acme' });
    for (const j of [a, b, c, unlabelled]) await store.ingest(j);
    await store.label('acme', a.submissionId, 'legitimate', 'alice');
    await store.label('acme', b.submissionId, 'legitimate', 'alice');
    await store.label('globex', c.submissionId, 'spam', 'gina');

    expect((await exportLabels(store, out.dir)).written).toBe(3);
    const first = await lines(out.dir);
    expect(first).toHaveLength(3);
    const lineA = first.find((l) => l.submissionId === a.submissionId);
    expect(Object.keys(lineA ?? {}).sort()).toEqual(['fields', 'formId', 'label', 'labelledAt', 'modelConfidence', 'modelStatus', 'moderatorId', 'submissionId']);
    expect(lineA).toMatchObject({ label: 'legitimate', modelStatus: 'spam', modelConfidence: 0.8, moderatorId: 'alice', formId: 'contact', fields: a.fields });
    expect(first.some((l) => l.submissionId === unlabelled.submissionId)).toBe(false);

    expect((await exportLabels(store, out.dir)).written).toBe(0);
    expect(await lines(out.dir)).toHaveLength(3);
  });

  it('exports a relabel as a new line and does not repeat a label already on disk after a crash', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.ingest(j);
    const first = await store.label('acme', j.submissionId, 'spam', 'alice');
    if (first === undefined) throw new Error('label failed');
    // A crash after the file write but before the acknowledgement: the line is on disk, the label still unexported.
    const file = path.join(out.dir, `${first.labelledAt.slice(0, 10)}.jsonl`);
    await writeFile(file, `${JSON.stringify(exportLine(first))}\n{"torn`);
    expect((await exportLabels(store, out.dir)).written).toBe(0);
    expect((await store.unexported('acme')).length).toBe(0);

    const second = await store.label('acme', j.submissionId, 'legitimate', 'bob');
    expect((await exportLabels(store, out.dir)).written).toBe(1);
    // The torn fragment is gone, so training reads the file: both labels, the newest (bob's) winning.
    const rows = (await readFile(file, 'utf8')).split('\n');
    expect(rows.at(-1)).toBe('');
    expect(rows.slice(0, -1).map((r) => (JSON.parse(r) as { moderatorId: string }).moderatorId)).toEqual(['alice', 'bob']);
    expect(second?.label).toBe('legitimate');
    expect(latestLabels(loadJsonl(file, 'labels')).map((r) => r.label)).toEqual(['legitimate']);
  });

  it('rewrites a label whose line a crash cut short, and keeps a last line that is whole but unterminated', async () => {
    const torn = fakeJob({ accountId: 'acme' });
    const whole = fakeJob({ accountId: 'acme' });
    await store.ingest(torn);
    await store.ingest(whole);
    const a = await store.label('acme', whole.submissionId, 'spam', 'alice');
    const b = await store.label('acme', torn.submissionId, 'spam', 'alice');
    if (a === undefined || b === undefined) throw new Error('label failed');
    const file = path.join(out.dir, `${b.labelledAt.slice(0, 10)}.jsonl`);
    const lineA = JSON.stringify(exportLine(a));
    const lineB = JSON.stringify(exportLine(b));
    // a's line was written whole; the crash cut b's in the middle of a character ("é" is two bytes in UTF-8).
    await writeFile(file, Buffer.concat([Buffer.from(`${lineA}\n${lineB.slice(0, 40)}`), Buffer.from('é').subarray(0, 1)]));
    expect((await exportLabels(store, out.dir)).written).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(`${lineA}\n${lineB}\n`);

    // A whole last line without its newline (an editor's save) is not cut: the next line starts on a fresh one.
    const c = fakeJob({ accountId: 'acme' });
    await store.ingest(c);
    const lineC = JSON.stringify(exportLine((await store.label('acme', c.submissionId, 'legitimate', 'bob'))!));
    await writeFile(file, `${lineA}\n${lineB}`);
    expect((await exportLabels(store, out.dir)).written).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(`${lineA}\n${lineB}\n${lineC}\n`);
  });

  it('refuses a second export into the same folder while one runs: no label is written twice', async () => {
    const jobs = [fakeJob({ accountId: 'acme' }), fakeJob({ accountId: 'acme' }), fakeJob({ accountId: 'globex' })];
    for (const j of jobs) await store.ingest(j);
    for (const j of jobs) await store.label(j.accountId, j.submissionId, 'spam', 'alice');
    // Both exports read the store only once both have started (a cron run and a manual run at the same moment).
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let arrived = 0;
    const gated = {
      accounts: () => store.accounts(),
      unexported: async (accountId: string, limit?: number) => {
        if (++arrived === 2) release();
        await gate;
        return store.unexported(accountId, limit);
      },
      acknowledgeExported: (accountId: string, entries: { submissionId: string; score: string }[]) => store.acknowledgeExported(accountId, entries),
    } as unknown as ReviewStore;
    const one = exportLabels(gated, out.dir);
    const two = exportLabels(gated, out.dir).finally(release);
    const results = await Promise.allSettled([one.finally(release), two]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(ExportBusyError);
    expect(String((refused?.reason as Error).message)).toMatch(/another labels:export is writing to .* \(pid \d+ on /);
    const written = await lines(out.dir);
    expect(written.map((l) => l.submissionId).sort()).toEqual(jobs.map((j) => j.submissionId).sort());
    // The lock goes with the export; the next run finds nothing new.
    expect(await readdir(out.dir)).not.toContain(EXPORT_LOCK);
    expect((await exportLabels(store, out.dir)).written).toBe(0);
  });

  it('takes over a lock left by an export of this host that is no longer running', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.ingest(j);
    await store.label('acme', j.submissionId, 'spam', 'alice');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(path.join(out.dir, EXPORT_LOCK), JSON.stringify({ pid: gone, host: hostname(), startedAt: new Date().toISOString() }));
    expect((await exportLabels(store, out.dir)).written).toBe(1);
    // A lock of a live export (this process stands in for it) is respected.
    await writeFile(path.join(out.dir, EXPORT_LOCK), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
    await expect(exportLabels(store, out.dir)).rejects.toBeInstanceOf(ExportBusyError);
  });
});
