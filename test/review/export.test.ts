import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { exportLabels, exportLine } from '../../service/review/export-labels.ts';
import { ReviewStore } from '../../service/review/store.ts';
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
    const text = await readFile(file, 'utf8');
    const rows = text.split('\n').filter((l) => l.startsWith('{"submissionId'));
    expect(rows.map((r) => (JSON.parse(r) as { moderatorId: string }).moderatorId)).toEqual(['alice', 'bob']);
    expect(second?.label).toBe('legitimate');
  });
});
