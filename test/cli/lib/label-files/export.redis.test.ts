import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_LOCK, ExportBusyError, exportLabels, exportLine } from '../../../../cli/lib/label-files/export-labels.ts';
import type { ExportLedger, UnexportedLabel } from '../../../../service/review/store/export-ledger.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { latestLabels, loadDataDir, loadJsonl } from '../../../../training/data/loaders.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { fakeJob } from '../../../service/review/helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const keys = useTestRedis('export');
const redis = keys.redis;
let store: ReviewStore;
let out: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  store = new ReviewStore(redis, { prefix: keys.prefix(), retentionDays: 30 });
  out = await tempDir('labels');
  return () => out.remove();
});

async function lines(dir: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (const name of (await readdir(dir)).sort()) {
    expect(name).toMatch(/^\d{4}-\d{2}-\d{2}\.jsonl$/);
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n'))
      if (line !== '') all.push(JSON.parse(line) as Record<string, unknown>);
  }
  return all;
}

describe('labels:export', () => {
  it('writes each label once, in the training shape, across accounts; a second run adds nothing', async () => {
    const a = fakeJob({ accountId: 'acme', status: 'spam', confidence: 0.8 });
    const b = fakeJob({ accountId: 'acme', status: 'legitimate', confidence: 0.6 });
    const c = fakeJob({ accountId: 'globex' });
    const unlabelled = fakeJob({ accountId: 'acme' });
    for (const j of [a, b, c, unlabelled]) await store.items.ingest(j);
    await store.labels.label('acme', a.submissionId, 'legitimate', 'alice');
    await store.labels.label('acme', b.submissionId, 'legitimate', 'alice');
    await store.labels.label('globex', c.submissionId, 'spam', 'gina');

    expect((await exportLabels(store.exports, out.dir)).written).toBe(3);
    const first = await lines(out.dir);
    expect(first).toHaveLength(3);
    const lineA = first.find((l) => l.submissionId === a.submissionId);
    expect(Object.keys(lineA ?? {}).sort()).toEqual([
      'accountId',
      'fields',
      'formId',
      'how',
      'label',
      'labelId',
      'labelledAt',
      'modelConfidence',
      'modelStatus',
      'moderatorId',
      'submissionId',
    ]);
    // Every label has its own id (what a withdrawal names), unique across labels.
    expect(new Set(first.map((l) => l.labelId)).size).toBe(3);
    expect(lineA?.labelId).toBe((await store.labels.getLabel('acme', a.submissionId))?.labelId);
    expect(lineA).toMatchObject({
      accountId: 'acme',
      how: 'single',
      label: 'legitimate',
      modelStatus: 'spam',
      modelConfidence: 0.8,
      moderatorId: 'alice',
      formId: 'contact',
      fields: a.fields,
    });
    // Each line names its account, so one account's lines can be found (and erased) among several accounts'.
    expect(Object.fromEntries(first.map((l) => [l.submissionId, l.accountId]))).toEqual({
      [a.submissionId]: 'acme',
      [b.submissionId]: 'acme',
      [c.submissionId]: 'globex',
    });
    expect(first.some((l) => l.submissionId === unlabelled.submissionId)).toBe(false);

    expect((await exportLabels(store.exports, out.dir)).written).toBe(0);
    expect(await lines(out.dir)).toHaveLength(3);
  });

  it('exports a relabel as a new line and does not repeat a label already on disk after a crash', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.items.ingest(j);
    const first = await store.labels.label('acme', j.submissionId, 'spam', 'alice');
    if (first === undefined) throw new Error('label failed');
    // A crash after the file write but before the acknowledgement: the line is on disk, the label still unexported.
    const file = path.join(out.dir, `${first.labelledAt.slice(0, 10)}.jsonl`);
    await writeFile(file, `${JSON.stringify(exportLine(first))}\n{"torn`);
    expect((await exportLabels(store.exports, out.dir)).written).toBe(0);
    expect((await store.exports.unexported('acme')).length).toBe(0);

    const second = await store.labels.label('acme', j.submissionId, 'legitimate', 'bob');
    expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
    // The torn fragment is gone, so training reads the file: both labels, the newest (bob's) winning.
    const rows = (await readFile(file, 'utf8')).split('\n');
    expect(rows.at(-1)).toBe('');
    expect(rows.slice(0, -1).map((r) => (JSON.parse(r) as { moderatorId: string }).moderatorId)).toEqual(['alice', 'bob']);
    expect(second?.label).toBe('legitimate');
    expect(latestLabels(loadJsonl(file, 'labels')).map((r) => r.label)).toEqual(['legitimate']);
  });

  it('recognises lines exported before labels named their account or had ids, and training reads old and new lines alike', async () => {
    const old = fakeJob({ accountId: 'acme' });
    const fresh = fakeJob({ accountId: 'acme' });
    await store.items.ingest(old);
    await store.items.ingest(fresh);
    const oldLabel = (await store.labels.label('acme', old.submissionId, 'spam', 'alice'))!;
    // An older export wrote this label's line (no accountId, no labelId) and stopped before its acknowledgement.
    const { accountId: _, labelId: __, ...legacy } = exportLine(oldLabel);
    const file = path.join(out.dir, `${oldLabel.labelledAt.slice(0, 10)}.jsonl`);
    await writeFile(file, `${JSON.stringify(legacy)}\n`);
    await store.labels.label('acme', fresh.submissionId, 'legitimate', 'alice');

    expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
    const written = await lines(out.dir);
    expect(written.map((l) => [l.submissionId, l.accountId])).toEqual([
      [old.submissionId, undefined],
      [fresh.submissionId, 'acme'],
    ]);
    expect(loadJsonl(file, 'labels').map((r) => [r.id, r.label])).toEqual([
      [`label:${old.submissionId}`, 'spam'],
      [`label:${fresh.submissionId}`, 'legitimate'],
    ]);
  });

  it('rewrites a label whose line a crash cut short, and keeps a last line that is whole but unterminated', async () => {
    const torn = fakeJob({ accountId: 'acme' });
    const whole = fakeJob({ accountId: 'acme' });
    await store.items.ingest(torn);
    await store.items.ingest(whole);
    const a = await store.labels.label('acme', whole.submissionId, 'spam', 'alice');
    const b = await store.labels.label('acme', torn.submissionId, 'spam', 'alice');
    if (a === undefined || b === undefined) throw new Error('label failed');
    const file = path.join(out.dir, `${b.labelledAt.slice(0, 10)}.jsonl`);
    const lineA = JSON.stringify(exportLine(a));
    const lineB = JSON.stringify(exportLine(b));
    // a's line was written whole; the crash cut b's in the middle of a character ("é" is two bytes in UTF-8).
    await writeFile(file, Buffer.concat([Buffer.from(`${lineA}\n${lineB.slice(0, 40)}`), Buffer.from('é').subarray(0, 1)]));
    expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(`${lineA}\n${lineB}\n`);

    // A whole last line without its newline (an editor's save) is not cut: the next line starts on a fresh one.
    const c = fakeJob({ accountId: 'acme' });
    await store.items.ingest(c);
    const lineC = JSON.stringify(exportLine((await store.labels.label('acme', c.submissionId, 'legitimate', 'bob'))!));
    await writeFile(file, `${lineA}\n${lineB}`);
    expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(`${lineA}\n${lineB}\n${lineC}\n`);
  });

  it('refuses a second export into the same folder while one runs: no label is written twice', async () => {
    const jobs = [fakeJob({ accountId: 'acme' }), fakeJob({ accountId: 'acme' }), fakeJob({ accountId: 'globex' })];
    for (const j of jobs) await store.items.ingest(j);
    for (const j of jobs) await store.labels.label(j.accountId, j.submissionId, 'spam', 'alice');
    // Both exports read the store only once both have started (a cron run and a manual run at the same moment).
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let arrived = 0;
    const gated = {
      accounts: () => store.exports.accounts(),
      unexported: async (accountId: string, limit?: number) => {
        if (++arrived === 2) release();
        await gate;
        return store.exports.unexported(accountId, limit);
      },
      acknowledgeExported: (accountId: string, entries: UnexportedLabel[]) => store.exports.acknowledgeExported(accountId, entries),
      withdrawals: (accountId: string, limit?: number) => store.exports.withdrawals(accountId, limit),
      acknowledgeWithdrawals: (accountId: string, members: string[]) => store.exports.acknowledgeWithdrawals(accountId, members),
    } as unknown as ExportLedger;
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
    expect((await exportLabels(store.exports, out.dir)).written).toBe(0);
  });

  it('takes over a lock left by an export of this host that is no longer running', async () => {
    const j = fakeJob({ accountId: 'acme' });
    await store.items.ingest(j);
    await store.labels.label('acme', j.submissionId, 'spam', 'alice');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(path.join(out.dir, EXPORT_LOCK), JSON.stringify({ pid: gone, host: hostname(), startedAt: new Date().toISOString() }));
    expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
    // A lock of a live export (this process stands in for it) is respected.
    await writeFile(
      path.join(out.dir, EXPORT_LOCK),
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }),
    );
    await expect(exportLabels(store.exports, out.dir)).rejects.toBeInstanceOf(ExportBusyError);
  });
});

describe('labels:export after an undo', () => {
  // From noon (UTC) today, so a test's labels never straddle midnight into two date files; every label and undo a
  // second after the one before, so no two labels of an item share a labelledAt.
  let clock = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000;
  const timed = () => new ReviewStore(redis, { prefix: store.keys.prefix, retentionDays: 30, now: () => (clock += 1000) });

  it('writes the withdrawal of an exported label once, beside its label line, across export runs', async () => {
    const s = timed();
    const j = fakeJob({ accountId: 'acme' });
    await s.items.ingest(j);
    const alices = (await s.labels.label('acme', j.submissionId, 'spam', 'alice'))!;
    expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 1, withdrawn: 0 });
    await s.labels.undo('acme', 'alice');

    const second = await exportLabels(s.exports, out.dir);
    expect(second).toMatchObject({ written: 0, withdrawn: 1, files: [`${alices.labelledAt.slice(0, 10)}.jsonl`] });
    const after = await lines(out.dir);
    expect(after).toHaveLength(2);
    expect(after[1]).toEqual({
      submissionId: j.submissionId,
      labelId: alices.labelId,
      accountId: 'acme',
      withdrawn: alices.labelledAt,
      withdrawnAt: expect.any(String) as string,
    });
    expect(Date.parse(String(after[1]?.withdrawnAt))).toBeGreaterThan(Date.parse(alices.labelledAt));
    expect(await s.exports.withdrawals('acme')).toEqual([]);

    expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 0, withdrawn: 0 });
    expect(await lines(out.dir)).toEqual(after);
    // Training reads the file without the undone label.
    const file = path.join(out.dir, `${alices.labelledAt.slice(0, 10)}.jsonl`);
    expect(loadJsonl(file, 'labels')).toEqual([]);
  });

  it('does not write a withdrawal again after a crash between its write and its acknowledgement, and rewrites a torn one', async () => {
    const s = timed();
    const a = fakeJob({ accountId: 'acme' });
    const b = fakeJob({ accountId: 'acme' });
    await s.items.ingest(a);
    await s.items.ingest(b);
    const la = (await s.labels.label('acme', a.submissionId, 'spam', 'alice'))!;
    const lb = (await s.labels.label('acme', b.submissionId, 'spam', 'alice'))!;
    await exportLabels(s.exports, out.dir);
    await s.labels.undo('acme', 'alice'); // b
    await s.labels.undo('acme', 'alice'); // a
    const [wb, wa] = await s.exports.withdrawals('acme');
    // The crash: a's withdrawal line is whole on disk, b's cut short; neither acknowledged.
    const file = path.join(out.dir, `${la.labelledAt.slice(0, 10)}.jsonl`);
    const before = await readFile(file, 'utf8');
    const lineA = JSON.stringify({
      submissionId: a.submissionId,
      labelId: la.labelId,
      accountId: 'acme',
      withdrawn: la.labelledAt,
      withdrawnAt: wa!.withdrawnAt,
    });
    const lineB = JSON.stringify({
      submissionId: b.submissionId,
      labelId: lb.labelId,
      accountId: 'acme',
      withdrawn: lb.labelledAt,
      withdrawnAt: wb!.withdrawnAt,
    });
    await writeFile(file, `${before}${lineA}\n${lineB.slice(0, 30)}`);

    expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 0, withdrawn: 1 });
    expect(await readFile(file, 'utf8')).toBe(`${before}${lineA}\n${lineB}\n`);
    expect(await s.exports.withdrawals('acme')).toEqual([]);
    expect(loadJsonl(file, 'labels')).toEqual([]);
  });

  it('writes no withdrawal for a label undone before any export wrote it', async () => {
    const s = timed();
    const j = fakeJob({ accountId: 'acme' });
    await s.items.ingest(j);
    await s.labels.label('acme', j.submissionId, 'spam', 'alice');
    await s.labels.undo('acme', 'alice');
    expect(await exportLabels(s.exports, out.dir)).toEqual({ written: 0, withdrawn: 0, files: [] });
    expect(await lines(out.dir)).toEqual([]);
    expect(await s.exports.withdrawals('acme')).toEqual([]);
  });

  it('withdraws a label an export wrote but had not acknowledged when it was undone (a crash, or an undo meanwhile)', async () => {
    const s = timed();
    const crashed = fakeJob({ accountId: 'acme' });
    const raced = fakeJob({ accountId: 'acme' });
    await s.items.ingest(crashed);
    await s.items.ingest(raced);
    // A crash after the write, before the acknowledgement; then the moderator undoes the label, still "unexported".
    const lc = (await s.labels.label('acme', crashed.submissionId, 'spam', 'alice'))!;
    const file = path.join(out.dir, `${lc.labelledAt.slice(0, 10)}.jsonl`);
    await writeFile(file, `${JSON.stringify(exportLine(lc))}\n`);
    await s.labels.undo('acme', 'alice');
    // The other label is undone between this export's write and its acknowledgement.
    await s.labels.label('acme', raced.submissionId, 'legitimate', 'bob');
    const racing = {
      accounts: () => s.exports.accounts(),
      unexported: (accountId: string, limit?: number) => s.exports.unexported(accountId, limit),
      acknowledgeExported: async (accountId: string, entries: UnexportedLabel[]) => {
        expect(await s.labels.undo('acme', 'bob')).toEqual({ kind: 'undone', submissionId: raced.submissionId });
        return s.exports.acknowledgeExported(accountId, entries);
      },
      withdrawals: (accountId: string, limit?: number) => s.exports.withdrawals(accountId, limit),
      acknowledgeWithdrawals: (accountId: string, members: string[]) => s.exports.acknowledgeWithdrawals(accountId, members),
    } as unknown as ExportLedger;

    expect(await exportLabels(racing, out.dir)).toMatchObject({ written: 1, withdrawn: 2 });
    expect(
      (await lines(out.dir))
        .filter((l) => 'withdrawn' in l)
        .map((l) => l.submissionId)
        .sort(),
    ).toEqual([crashed.submissionId, raced.submissionId].sort());
    expect(await s.exports.unexported('acme')).toEqual([]);
    expect(latestLabels(loadJsonl(file, 'labels'))).toEqual([]);
  });

  describe('two labels of one submission in the same millisecond (two instances, two moderators)', () => {
    // A clock that stands still: every label and undo of these tests happens in the same millisecond.
    const frozen = () => {
      const at = (clock += 1000);
      return new ReviewStore(redis, { prefix: store.keys.prefix, retentionDays: 30, now: () => at });
    };
    const trained = async (file: string) => latestLabels(loadJsonl(file, 'labels')).map((r) => r.label);
    /** Where each of these tests starts: one acme submission, labelled spam by alice; `file` is where her line goes. */
    const labelledByAlice = async () => {
      const s = frozen();
      const j = fakeJob({ accountId: 'acme' });
      await s.items.ingest(j);
      const alices = (await s.labels.label('acme', j.submissionId, 'spam', 'alice'))!;
      return { s, j, file: path.join(out.dir, `${alices.labelledAt.slice(0, 10)}.jsonl`) };
    };

    it('an undo of the relabel withdraws the relabel only: the restored label is still trained on', async () => {
      const { s, j, file } = await labelledByAlice();
      await exportLabels(s.exports, out.dir);
      await s.labels.label('acme', j.submissionId, 'legitimate', 'bob');
      expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 1 });
      expect(await s.labels.undo('acme', 'bob')).toMatchObject({ kind: 'undone' });
      expect(await exportLabels(s.exports, out.dir)).toMatchObject({ withdrawn: 1 });

      expect((await s.labels.getLabel('acme', j.submissionId))?.label).toBe('spam');
      expect(await trained(file)).toEqual(['spam']);
    });

    it('an undo of a relabel never exported writes no withdrawal that would take the restored label with it', async () => {
      const { s, j, file } = await labelledByAlice();
      await exportLabels(s.exports, out.dir);
      await s.labels.label('acme', j.submissionId, 'legitimate', 'bob');
      await s.labels.undo('acme', 'bob');
      expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 0, withdrawn: 0 });
      expect(await trained(file)).toEqual(['spam']);
    });

    it('withdraws a label whose line an older export wrote without its labelId, and only that line', async () => {
      const { s, j, file } = await labelledByAlice();
      await exportLabels(s.exports, out.dir);
      const bobs = (await s.labels.label('acme', j.submissionId, 'legitimate', 'bob'))!;
      // An older export (no labelId in its lines) wrote bob's relabel and stopped before its acknowledgement.
      const { labelId: _, ...older } = exportLine(bobs);
      await writeFile(file, `${await readFile(file, 'utf8')}${JSON.stringify(older)}\n`);
      await s.labels.undo('acme', 'bob');
      expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 0, withdrawn: 1 });
      expect(await trained(file)).toEqual(['spam']);
    });

    it('a relabel made while the export writes the label it replaces is exported, not acknowledged unwritten', async () => {
      const { s, j, file } = await labelledByAlice();
      const racing = {
        accounts: () => s.exports.accounts(),
        unexported: (accountId: string, limit?: number) => s.exports.unexported(accountId, limit),
        acknowledgeExported: async (accountId: string, entries: UnexportedLabel[]) => {
          await s.labels.label('acme', j.submissionId, 'legitimate', 'bob'); // after the write of alice's line
          return s.exports.acknowledgeExported(accountId, entries);
        },
        withdrawals: (accountId: string, limit?: number) => s.exports.withdrawals(accountId, limit),
        acknowledgeWithdrawals: (accountId: string, members: string[]) => s.exports.acknowledgeWithdrawals(accountId, members),
      } as unknown as ExportLedger;
      expect(await exportLabels(racing, out.dir)).toMatchObject({ written: 1 });
      expect(await exportLabels(s.exports, out.dir)).toMatchObject({ written: 1 });
      expect((await lines(out.dir)).map((l) => l.moderatorId)).toEqual(['alice', 'bob']);
      expect(await trained(file)).toEqual(['legitimate']);
    });
  });

  it('end to end: label, export, undo, export; training gets the labels the store now holds', async () => {
    const s = timed();
    const labels = path.join(out.dir, 'labels');
    const jobs = { restored: fakeJob(), pending: fakeJob(), relabelled: fakeJob(), kept: fakeJob(), restoredUnexported: fakeJob() };
    for (const j of Object.values(jobs)) await s.items.ingest(j);
    const id = (name: keyof typeof jobs) => jobs[name].submissionId;

    await s.labels.label('acme', id('restored'), 'spam', 'alice');
    await s.labels.label('acme', id('pending'), 'spam', 'paul');
    await s.labels.label('acme', id('relabelled'), 'spam', 'rita');
    await s.labels.label('acme', id('kept'), 'legitimate', 'kim');
    await s.labels.label('acme', id('restoredUnexported'), 'spam', 'mia');
    await s.labels.label('acme', id('restoredUnexported'), 'legitimate', 'nina'); // mia's label is replaced before any export
    await exportLabels(s.exports, labels);
    await s.labels.label('acme', id('restored'), 'legitimate', 'bob');
    await exportLabels(s.exports, labels);

    await s.labels.undo('acme', 'bob'); // (a) alice's exported spam is back
    await s.labels.undo('acme', 'paul'); // (b) back to pending
    await s.labels.undo('acme', 'rita');
    await s.labels.label('acme', id('relabelled'), 'legitimate', 'rita'); // labelled again after the undo
    await s.labels.undo('acme', 'nina'); // mia's spam is back, and still to be exported
    const third = await exportLabels(s.exports, labels);

    const { records, withdrawn } = loadDataDir(out.dir);
    expect(Object.fromEntries(records.map((r) => [r.id, r.label]))).toEqual({
      [`label:${id('restored')}`]: 'spam',
      [`label:${id('relabelled')}`]: 'legitimate',
      [`label:${id('kept')}`]: 'legitimate',
      [`label:${id('restoredUnexported')}`]: 'spam',
    });
    expect(withdrawn).toBe(4);
    // The third run wrote rita's new label, mia's restored one, and a withdrawal for each of the four undos.
    expect(third).toMatchObject({ written: 2, withdrawn: 4 });
    // Training agrees with the store, item by item.
    for (const name of Object.keys(jobs) as (keyof typeof jobs)[]) {
      expect((await s.labels.getLabel('acme', id(name)))?.label).toBe(records.find((r) => r.id === `label:${id(name)}`)?.label);
    }
    expect(await exportLabels(s.exports, labels)).toMatchObject({ written: 0, withdrawn: 0 });
  });
});
