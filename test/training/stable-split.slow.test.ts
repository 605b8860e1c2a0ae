import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModelFolder, readManifest } from '../../core/classifier/load.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { loadDataDir } from '../../training/data/loaders.ts';
import { normalizedText, splitRecords, textHash } from '../../training/data/split.ts';
import { fairComparison } from '../../training/lifecycle/fair-comparison.ts';
import { trainingSetOf } from '../../training/lifecycle/trained-on.ts';
import { runTraining } from '../../training/pipeline.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'formguard-stable-split-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const before = path.join(tmp, 'data-before');
const after = path.join(tmp, 'data-after');
const noHoldout = path.join(tmp, 'no-holdout');
cpSync(path.join(repoRoot, 'test/fixtures/training'), before, { recursive: true });
cpSync(before, after, { recursive: true });
// The 60 hand-written contact-form submissions added to the data.
cpSync(path.join(repoRoot, 'test/fixtures/training/sixty-new-forms.jsonl'), path.join(after, 'forms', 'sixty-new.jsonl'));

const seed = 3;
const options = {
  outDir: path.join(tmp, 'models'),
  seed,
  epochs: 4,
  batchSize: 16,
  learningRate: 0.05,
  l2: 1e-7,
  targetFpr: 0.05,
  sourceWeights: {},
  holdoutDir: noHoldout,
  log: () => {},
};
const texts = (rs: readonly { fields: Record<string, unknown> }[]) => new Set(rs.map((r) => normalizedText(r.fields)));

describe('splits that do not move when data is added', () => {
  it('adding 60 records keeps every old test record in test and every old training record out of it', () => {
    const old = splitRecords(loadDataDir(before).records, { seed, validation: 0.15, test: 0.15 });
    const now = splitRecords(loadDataDir(after).records, { seed, validation: 0.15, test: 0.15 });
    const nowTest = texts(now.test);
    const nowTrained = texts([...now.train, ...now.validation]);
    expect(old.test.length).toBeGreaterThan(5);
    for (const t of texts(old.test)) expect(nowTest.has(t)).toBe(true);
    for (const t of texts([...old.train, ...old.validation])) expect(nowTrained.has(t)).toBe(true);
    // Only the added records are new to the split, on whichever side their own text puts them.
    expect(now.test.length + now.train.length + now.validation.length).toBe(
      old.test.length + old.train.length + old.validation.length + 60,
    );
  });

  it('a model trained before the change scores no record of the new comparison that it trained on', async () => {
    const first = await runTraining({ ...options, dataDir: before, now: new Date('2026-01-01T00:00:00Z') });
    const second = await runTraining({ ...options, dataDir: after, now: new Date('2026-01-02T00:00:00Z') });
    // What the first model trained on, from its own split (not from the list it wrote, which is what is checked).
    const old = splitRecords(loadDataDir(before).records, { seed, validation: 0.15, test: 0.15 });
    const oldTrained = texts([...old.train, ...old.validation]);
    const fair = fairComparison({
      current: { model: await loadModelFolder(first.dir), dir: first.dir },
      candidate: { model: await loadModelFolder(second.dir), dir: second.dir },
      records: second.test,
      what: 'the new test split',
      dataDir: after,
      givenFiles: false,
    });
    const compared = fair.comparison.paired.n;
    expect(compared).toBeGreaterThan(0);
    // Every record compared is in the new test split, and none is a text the first model trained on.
    const scoredIds = new Set(second.test.map((r) => r.id));
    expect(second.test.filter((r) => oldTrained.has(normalizedText(r.fields)))).toEqual([]);
    expect(compared).toBe(second.test.length);
    expect([...fair.comparison.paired.fixed, ...fair.comparison.paired.broken].every((id) => scoredIds.has(id))).toBe(true);
    // The list the first model wrote is the texts of its train + validation split.
    const listed = trainingSetOf(first.dir, await readManifest(first.dir), before);
    expect(listed.known && [...listed.texts].sort()).toEqual([...oldTrained].map(textHash).sort());
    expect(fair.lines[0]).toBe(
      `${first.manifest.version} → ${second.manifest.version} on ${compared} records of the new test split that neither model trained on (of ${second.test.length}: 0 were in ${first.manifest.version}'s training data, 0 were in ${second.manifest.version}'s training data)`,
    );
  }, 120_000);
});

describe('an older model without a list of what it trained on', () => {
  const shipped = path.join(repoRoot, 'models', '20261125-002832');

  it('has its training set rebuilt from the unchanged data files its manifest lists', async () => {
    const manifest = await readManifest(shipped);
    expect(manifest.data.trainedOn).toBeUndefined();
    const set = trainingSetOf(shipped, manifest, path.join(repoRoot, 'data'));
    expect(set.known).toBe(true);
    if (!set.known) return;
    const pooled = Object.values(manifest.data.splits).reduce((n, c) => n + c.train + c.validation, 0);
    // Its train + validation texts, plus repeats of them under another text form are the same texts: one hash each.
    expect(set.texts.size).toBe(pooled);
  });

  it('is refused for a split comparison when a data file it read has changed', async () => {
    const data = path.join(tmp, 'data-changed');
    cpSync(path.join(repoRoot, 'data'), data, { recursive: true });
    writeFileSync(
      path.join(data, 'forms', 'spam.jsonl'),
      '{"id":"x","label":"spam","layout":"basic","kind":"x","lang":"en","fields":{"m":"buy now"}}\n',
    );
    const set = trainingSetOf(shipped, await readManifest(shipped), data);
    expect(set).toEqual({ known: false, reason: expect.stringContaining('forms/spam.jsonl changed') });
  });
});

describe('the held-out sets stay out of every training run', () => {
  it('a data record with the text of a held-out record is not trained on, and the run counts it', async () => {
    const data = path.join(tmp, 'data-with-holdout-copy');
    const holdout = path.join(tmp, 'holdout');
    cpSync(before, data, { recursive: true });
    const lines = readFileSync(path.join(repoRoot, 'test/fixtures/training/sixty-new-forms.jsonl'), 'utf8').trim().split('\n');
    // Ten forms are a held-out set; the same ten (other ids, other case and spacing) slipped into the data.
    mkdirSync(holdout);
    writeFileSync(path.join(holdout, 'mine.jsonl'), `${lines.slice(0, 10).join('\n')}\n`);
    const copies = lines.slice(0, 10).map((l) => {
      const r = JSON.parse(l) as { id: string; fields: Record<string, string> };
      return JSON.stringify({
        ...r,
        id: `copy-${r.id}`,
        fields: Object.fromEntries(Object.entries(r.fields).map(([k, v]) => [k, `  ${v.toUpperCase()} `])),
      });
    });
    writeFileSync(path.join(data, 'forms', 'copied.jsonl'), `${copies.join('\n')}\n`);
    const log: string[] = [];
    const run = await runTraining({
      ...options,
      dataDir: data,
      holdoutDir: holdout,
      log: (l) => log.push(l),
      now: new Date('2026-01-03T00:00:00Z'),
    });
    expect(run.manifest.data.heldOut).toEqual({ files: 1, texts: 10, excluded: 10 });
    expect(log).toContain(`left out 10 records whose text is in a held-out set (${path.relative(process.cwd(), holdout)})`);
    const trained = trainingSetOf(run.dir, run.manifest, data);
    const held = loadDataDir(path.dirname(holdout), (rel) => rel === 'holdout/mine.jsonl').records.map((r) =>
      textHash(normalizedText(r.fields)),
    );
    expect(held).toHaveLength(10);
    expect(trained.known && held.filter((h) => trained.texts.has(h))).toEqual([]);
    expect(run.test.filter((r) => r.id.startsWith('copy-'))).toEqual([]);
  }, 120_000);

  it('refuses a --data folder inside the held-out folder, exporting nothing', async () => {
    const holdout = path.join(tmp, 'holdout-with-data');
    cpSync(before, path.join(holdout, 'data'), { recursive: true });
    await expect(runTraining({ ...options, dataDir: path.join(holdout, 'data'), holdoutDir: holdout })).rejects.toThrow(
      /is inside the held-out sets' folder .*: those are never trained on\. No model was exported\./,
    );
  });
});
