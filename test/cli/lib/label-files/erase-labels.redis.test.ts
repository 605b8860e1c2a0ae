import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { eraseLabels } from '../../../../cli/lib/label-files/erase-labels.ts';
import { EXPORT_LOCK, ExportBusyError, exportLabels, exportLine } from '../../../../cli/lib/label-files/export-labels.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { loadDataDir } from '../../../../training/data/loaders.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { fakeJob } from '../../../service/review/helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const keys = useTestRedis('erase');
const redis = keys.redis;
let store: ReviewStore;
let out: Awaited<ReturnType<typeof tempDir>>;
/** The labels folder: `labels/` of a data folder of its own, which loadDataDir can read. */
let dir: string;
// From noon (UTC) today, a second apart: every label of a test lands in one date file.
let clock = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000;

beforeEach(async () => {
  store = new ReviewStore(redis, { prefix: keys.prefix(), retentionDays: 30, now: () => (clock += 1000) });
  out = await tempDir('erase');
  dir = path.join(out.dir, 'labels');
  await mkdir(dir);
  return () => out.remove();
});

/** The folder's files and their text, by name (but the lock). */
async function snapshot(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) if (name !== EXPORT_LOCK) files[name] = await readFile(path.join(dir, name), 'utf8');
  return files;
}

async function keysOf(accountId: string): Promise<string[]> {
  return redis.keys(`${store.keys.forAccount(accountId).base}:*`);
}

/** Two accounts' labels in one folder: exported, relabelled, one undone after its export (a withdrawal line). */
async function twoAccounts() {
  const acme = [
    fakeJob({ accountId: 'acme', fields: { message: 'acme secret one' } }),
    fakeJob({ accountId: 'acme', fields: { message: 'acme secret two' } }),
  ];
  const globex = fakeJob({ accountId: 'globex', formId: 'globex-form', fields: { message: 'globex text' } });
  for (const j of [...acme, globex]) await store.items.ingest(j);
  await store.labels.label('acme', acme[0]!.submissionId, 'spam', 'alice');
  await store.labels.label('acme', acme[1]!.submissionId, 'spam', 'alice');
  await store.labels.label('globex', globex.submissionId, 'legitimate', 'gina');
  await exportLabels(store.exports, dir);
  await store.labels.label('acme', acme[0]!.submissionId, 'legitimate', 'bob');
  await exportLabels(store.exports, dir);
  await store.labels.undo('acme', 'bob'); // a withdrawal line for acme[0]
  await exportLabels(store.exports, dir);
  await store.labels.label('acme', acme[1]!.submissionId, 'legitimate', 'bob'); // not exported yet: only the store has it
  return { acme, globex };
}

describe('labels:erase of an account', () => {
  it('removes every line of the account from the files and the account from the store; other accounts keep theirs', async () => {
    const { acme, globex } = await twoAccounts();
    const globexLines = Object.values(await snapshot())
      .join('')
      .split('\n')
      .filter((l) => l.includes(globex.submissionId));
    expect(globexLines).toHaveLength(1);

    const result = await eraseLabels(dir, { accountId: 'acme' }, { store });
    expect(result).toMatchObject({ labels: 3, withdrawals: 1, submissions: 2, torn: 0, other: [] });
    expect(result.store?.account).toEqual({ items: 2, labels: 2, keys: expect.any(Number) as number });
    const text = Object.values(await snapshot()).join('');
    for (const j of acme) expect(text).not.toContain(j.submissionId);
    expect(text).not.toContain('acme secret');
    expect(text).not.toContain('"accountId":"acme"');
    expect(text.split('\n').filter((l) => l !== '')).toEqual(globexLines);

    // The store holds nothing of the account, so no later export writes its labels again (bob's was not exported).
    expect(await keysOf('acme')).toEqual([]);
    expect(await store.items.accounts()).toEqual(['globex']);
    expect((await keysOf('globex')).length).toBeGreaterThan(0);
    expect(await exportLabels(store.exports, dir)).toMatchObject({ written: 0, withdrawn: 0 });
    expect(
      loadDataDir(out.dir)
        .records.filter((r) => r.id.startsWith('label:'))
        .map((r) => r.id),
    ).toEqual([`label:${globex.submissionId}`]);
  });

  it('removes the older lines (no accountId) of the account’s submissions, and counts, by form, those it cannot attribute', async () => {
    const mine = fakeJob({ accountId: 'acme' });
    const unknown = fakeJob({ accountId: 'acme', formId: 'newsletter' });
    for (const j of [mine, unknown]) await store.items.ingest(j);
    const older = (await store.labels.label('acme', mine.submissionId, 'spam', 'alice'))!;
    const lost = (await store.labels.label('acme', unknown.submissionId, 'spam', 'alice'))!;
    // Lines of an export before labels named their account: mine is relabelled since (a new line names acme).
    const legacy = (r: typeof older) => {
      const { accountId: _, labelId: __, ...line } = exportLine(r);
      return JSON.stringify(line);
    };
    const file = path.join(dir, `${older.labelledAt.slice(0, 10)}.jsonl`);
    await writeFile(file, `${legacy(older)}\n${legacy(lost)}\n`);
    await store.exports.acknowledgeExported('acme', await store.exports.unexported('acme'));
    await store.labels.label('acme', mine.submissionId, 'legitimate', 'bob');
    await exportLabels(store.exports, dir);

    const result = await eraseLabels(dir, { accountId: 'acme' }, { store });
    expect(result).toMatchObject({ labels: 2, withdrawals: 0, submissions: 1 });
    expect(result.unattributed).toEqual(new Map([['newsletter', 1]]));
    expect(await readFile(file, 'utf8')).toBe(`${legacy(lost)}\n`);
    // Form ids are unique across the tenants file: erasing by form takes the older line too.
    expect(await eraseLabels(dir, { formIds: ['newsletter'] })).toMatchObject({ labels: 1, submissions: 1, files: [{ deleted: true }] });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('labels:erase of a submission', () => {
  it('removes its label and withdrawal lines, and the submission from the store for good', async () => {
    const { acme, globex } = await twoAccounts();
    const [gone, kept] = [acme[0]!, acme[1]!];
    const before = await snapshot();

    const result = await eraseLabels(dir, { submissionIds: [gone.submissionId] }, { store });
    expect(result).toMatchObject({ labels: 2, withdrawals: 1, submissions: 1 });
    expect(result.store?.submissions).toEqual([
      { submissionId: gone.submissionId, accountId: 'acme', item: true, label: true, lookup: false },
    ]);
    const after = await snapshot();
    expect(Object.values(after).join('')).not.toContain(gone.submissionId);
    // Every other line is as it was, in its order.
    for (const [name, text] of Object.entries(before)) {
      expect(after[name]).toBe(
        text
          .split('\n')
          .filter((l) => !l.includes(gone.submissionId))
          .join('\n'),
      );
    }

    // The store: no item, no label, nothing to export; a replay of the job (a spool, a re-added job) does not bring it back.
    expect(await store.items.get('acme', gone.submissionId)).toBeUndefined();
    expect(await store.labels.label('acme', gone.submissionId, 'spam', 'alice')).toBeUndefined();
    expect(await store.items.ingest(gone)).toBe('duplicate');
    expect(await store.items.get('acme', gone.submissionId)).toBeUndefined();
    expect((await store.exports.unexported('acme')).map((u) => u.submissionId)).toEqual([kept.submissionId]);
    expect((await store.items.listPending('acme')).map((j) => j.submissionId)).toEqual([]);
    expect(await store.items.counts('acme')).toEqual({ pending: 0, labelled: 1, shed: 0 });
    expect(await exportLabels(store.exports, dir)).toMatchObject({ written: 1, withdrawn: 0 });
    expect(Object.values(await snapshot()).join('')).not.toContain(gone.submissionId);
    expect(await store.labels.getLabel('globex', globex.submissionId)).toBeDefined();

    // Erasing it again finds nothing anywhere, and says so.
    expect(await eraseLabels(dir, { submissionIds: [gone.submissionId] }, { store })).toMatchObject({
      labels: 0,
      withdrawals: 0,
      files: [],
      store: { submissions: [] },
    });
  });

  it('takes its pending withdrawals out of the store, so no export writes a line of it again', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.items.ingest(j);
    await store.labels.label('acme', j.submissionId, 'spam', 'alice');
    await exportLabels(store.exports, dir);
    await store.labels.undo('acme', 'alice');
    expect(await store.exports.withdrawals('acme')).toHaveLength(1);
    await eraseLabels(dir, { submissionIds: [j.submissionId] }, { store });
    expect(await store.exports.withdrawals('acme')).toEqual([]);
    expect(await exportLabels(store.exports, dir)).toMatchObject({ written: 0, withdrawn: 0 });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('labels:erase, safely', () => {
  it('waits for no export: it is refused while one writes to the folder, and an export is refused while it erases', async () => {
    await twoAccounts();
    const before = await snapshot();
    const lock = path.join(dir, EXPORT_LOCK);
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
    const refused = eraseLabels(dir, { accountId: 'acme' }, { store });
    await expect(refused).rejects.toBeInstanceOf(ExportBusyError);
    await expect(refused).rejects.toThrow(/^another labels:export is writing to /);
    expect(await snapshot()).toEqual(before);
    expect(await store.items.accounts()).toContain('acme');

    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), command: 'labels:erase' }),
    );
    await expect(exportLabels(store.exports, dir)).rejects.toThrow(
      /^another labels:erase is writing to .*; run again when it is done, or delete .* if no labels:erase is running$/,
    );
  });

  it('keeps each file’s mode, deletes a file left empty, cuts a crash fragment, clears a crashed erasure’s temporary file', async () => {
    const a = fakeJob({ accountId: 'acme' });
    const b = fakeJob({ accountId: 'globex' });
    for (const j of [a, b]) await store.items.ingest(j);
    const la = (await store.labels.label('acme', a.submissionId, 'spam', 'alice'))!;
    const lb = (await store.labels.label('globex', b.submissionId, 'spam', 'gina'))!;
    const lineB = JSON.stringify(exportLine(lb));
    const mixed = path.join(dir, '2026-01-01.jsonl');
    const onlyA = path.join(dir, '2026-01-02.jsonl');
    await writeFile(mixed, `${JSON.stringify(exportLine(la))}\n${lineB}\n{"submissionId":"${a.submissionId}","fields":{"message":"cut sh`);
    await writeFile(onlyA, `${JSON.stringify(exportLine(la))}\n`);
    await chmod(mixed, 0o640);
    // What an erasure that crashed before its rename leaves: a copy of kept lines, which may hold erased content.
    const temp = path.join(dir, '.2026-01-01.jsonl.erase-tmp');
    await writeFile(temp, JSON.stringify(exportLine(la)));

    const result = await eraseLabels(dir, { accountId: 'acme' });
    expect(result).toMatchObject({ labels: 2, torn: 1, store: undefined });
    expect(result.files).toEqual([
      { name: '2026-01-01.jsonl', removed: 2, deleted: false },
      { name: '2026-01-02.jsonl', removed: 1, deleted: true },
    ]);
    expect(await snapshot()).toEqual({ '2026-01-01.jsonl': `${lineB}\n` });
    expect((await stat(mixed)).mode & 0o777).toBe(0o640);
  });

  it('changes nothing in a dry run, and says what it would remove', async () => {
    const { acme } = await twoAccounts();
    const before = await snapshot();
    const keys = (await keysOf('acme')).sort();
    const result = await eraseLabels(dir, { accountId: 'acme' }, { dryRun: true, store });
    expect(result).toMatchObject({ labels: 3, withdrawals: 1, submissions: 2, store: undefined });
    expect(await snapshot()).toEqual(before);
    expect((await keysOf('acme')).sort()).toEqual(keys);
    expect(await store.labels.getLabel('acme', acme[0]!.submissionId)).toBeDefined();
  });

  it('leaves lines it cannot read as a label where they are, and names them', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.items.ingest(j);
    const l = (await store.labels.label('acme', j.submissionId, 'spam', 'alice'))!;
    const file = path.join(dir, 'hand-made.jsonl');
    const odd = ['{"id":"r1","label":"spam","fields":{"message":"a record"}}', 'not json at all'];
    await writeFile(file, `${odd[0]}\n${JSON.stringify(exportLine(l))}\n${odd[1]}\n`);
    const result = await eraseLabels(dir, { submissionIds: [j.submissionId] });
    expect(result).toMatchObject({ labels: 1, other: ['hand-made.jsonl:1', 'hand-made.jsonl:3'] });
    expect(await readFile(file, 'utf8')).toBe(`${odd.join('\n')}\n`);
  });
});
