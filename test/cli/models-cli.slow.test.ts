import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServingRecord, servingFile } from '../../core/classifier/serving-record.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { copyModel, corruptModel, tempModelsDir } from '../support/models-dir.ts';
import { cli } from './run-cli.ts';

const A = '20260101-000000';
const B = '20260102-000000';
const BROKEN = '20260103-000000';
const OTHER_FEATURES = '20260104-000000';
let dir: string;
const models = (...args: string[]) => cli('cli/models.ts', args, { MODELS_DIR: dir });

beforeAll(async () => {
  dir = tempModelsDir();
  await copyModel(dir, A);
  await copyModel(dir, B, (m) => (m.threshold = 0.9));
  await corruptModel(dir, BROKEN);
  await copyModel(dir, OTHER_FEATURES, (m) => (m.featureVersion = '1-000000000000'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run models: malformed command lines exit 2 with the usage', () => {
  it.each([
    [[], 'a command is needed'],
    [['deploy'], 'unknown command deploy'],
    [['promote'], 'promote takes <version>'],
    [['promote', A, B], 'promote takes <version>'],
    [['rollback', A], 'rollback takes no arguments'],
    [['shadow'], 'shadow takes a <version>, or --off'],
    [['shadow', A, '--off'], 'shadow takes a <version>, or --off'],
    [['compare', A], 'compare takes <a> <b>'],
    [['compare', A, B, '--bogus'], "Unknown option '--bogus'"],
    [['shadow-report', '--account'], "Option '--account <value>' argument missing"],
  ])('%j', async (args, message) => {
    const r = await models(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`models: ${message}`);
    expect(r.stderr).toContain('npm run models -- <command>');
  });
});

describe('npm run models: changes', () => {
  it('list names every version; with no record the newest serves', async () => {
    const r = await models('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no serving record, the newest version serves');
    expect(r.stdout).toMatch(new RegExp(`^${OTHER_FEATURES} .* active$`, 'm'));
    // Each row names when its model was made and the test set its figures were taken on (split rule, seed, data
    // digest): the copies share the bundled model's, read from the copy's own manifest.
    const m = JSON.parse(readFileSync(path.join(dir, A, 'manifest.json'), 'utf8')) as {
      created: string;
      parameters: { seed: number };
      data: { split?: { rule: string; seed: number } };
    };
    const set = `${m.data.split?.rule ?? 'seeded-shuffle'} seed ${m.data.split?.seed ?? m.parameters.seed}`;
    expect(r.stdout).toMatch(new RegExp(`^${A} +${m.created.slice(0, 19)} .*% +${set} data [0-9a-f]{8}\\s*$`, 'm'));
    expect(r.stdout).toContain('Every test figure above was measured on the same test set');
  });

  it('promote refuses (exit 1, record untouched) a version that is missing, corrupt or of another feature version, naming why', async () => {
    const missing = await models('promote', '20990101-000000');
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain('no model version 20990101-000000 in');
    const corrupt = await models('promote', BROKEN);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(
      new RegExp(`${BROKEN} cannot serve: .*weights\\.bin (is shorter than model\\.json says|does not match its digest)`),
    );
    const features = await models('promote', OTHER_FEATURES);
    expect(features.code).toBe(1);
    expect(features.stderr).toContain(
      `${OTHER_FEATURES} cannot serve: model ${OTHER_FEATURES} was trained with feature version 1-000000000000`,
    );
    expect(await readServingRecord(dir)).toBeUndefined();
  });

  it('promote makes a version active and the one it replaced previous; rollback walks back through promotions, never forward', async () => {
    const first = await models('promote', A);
    expect(first.code).toBe(0);
    expect(await readServingRecord(dir)).toMatchObject({
      active: A,
      previous: OTHER_FEATURES,
      shadow: null,
      changedBy: expect.stringContaining('@'),
    });
    expect(await models('promote', A)).toMatchObject({ code: 1, stderr: expect.stringContaining(`${A} is already active`) });
    const second = await models('promote', B);
    expect(second).toMatchObject({ code: 0, stdout: expect.stringContaining(`promoted ${B} (previous: ${A}`) });
    expect(second.stdout).toContain('no shadow was set');
    expect((await models('promote', A)).code).toBe(0);
    expect(await readServingRecord(dir)).toMatchObject({ active: A, previous: B, history: [OTHER_FEATURES, A, B] });
    // Promotions: OTHER → A → B → A. Rollbacks undo them in turn: B, then A, then OTHER (which cannot serve).
    const back = await models('rollback');
    expect(back).toMatchObject({ code: 0, stdout: expect.stringContaining(`rolled back from ${A}: ${B} is active again`) });
    expect(await readServingRecord(dir)).toMatchObject({ active: B, previous: A, history: [OTHER_FEATURES, A] });
    const further = await models('rollback');
    expect(further).toMatchObject({ code: 0, stdout: expect.stringContaining(`rolled back from ${B}: ${A} is active again`) });
    const list = await models('list');
    expect(list.stdout).toMatch(new RegExp(`^${A} .* active$`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^${OTHER_FEATURES} .* previous$`, 'm'));
    // The third goes back to OTHER_FEATURES, which cannot serve: refused, nothing changed; never forward to B.
    const third = await models('rollback');
    expect(third).toMatchObject({ code: 1, stderr: expect.stringContaining(`${OTHER_FEATURES} cannot serve`) });
    expect(await readServingRecord(dir)).toMatchObject({ active: A, history: [OTHER_FEATURES] });
  });

  it('rollback with no promotion left to undo refuses plainly (exit 1) and changes nothing', async () => {
    const record = { active: A, previous: null, history: [], shadow: null, changedAt: new Date().toISOString(), changedBy: 't' };
    writeFileSync(servingFile(dir), JSON.stringify(record));
    const r = await models('rollback');
    expect(r).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing to roll back to') });
    expect(r.stderr).toContain('never forward');
    expect(JSON.parse(readFileSync(servingFile(dir), 'utf8'))).toEqual(record);
  });

  it('rollback refuses when the previous version cannot serve any more', async () => {
    writeFileSync(
      servingFile(dir),
      JSON.stringify({ active: A, previous: BROKEN, shadow: null, changedAt: new Date().toISOString(), changedBy: 't' }),
    );
    const r = await models('rollback');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${BROKEN} cannot serve`);
    expect((await readServingRecord(dir))?.active).toBe(A);
  });

  it('shadow sets and clears the shadow; it refuses the active model and a model that cannot load', async () => {
    expect(await models('shadow', A)).toMatchObject({ code: 1, stderr: expect.stringContaining(`${A} is the active model`) });
    expect(await models('shadow', BROKEN)).toMatchObject({ code: 1, stderr: expect.stringContaining(`${BROKEN} cannot serve`) });
    expect(await models('shadow', B)).toMatchObject({ code: 0, stdout: expect.stringContaining(`shadowing ${B} beside ${A}`) });
    expect(await readServingRecord(dir)).toMatchObject({ active: A, shadow: B });
    expect((await models('list')).stdout).toMatch(new RegExp(`^${B} .* shadow$`, 'm'));
    // Promoting the shadow ends its shadowing, and says so.
    const promoted = await models('promote', B);
    expect(promoted).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`the shadow ${B} is now the active model, so nothing is shadowed`),
    });
    expect(await readServingRecord(dir)).toMatchObject({ active: B, previous: A, shadow: null });
    expect((await models('shadow', A)).code).toBe(0);
    expect(await models('shadow', '--off')).toMatchObject({ code: 0, stdout: `shadow ${A} off\n` });
    expect((await readServingRecord(dir))?.shadow).toBeNull();
    expect(await models('shadow', '--off')).toMatchObject({ code: 0, stdout: 'no shadow was set; nothing changed\n' });
  });

  it('refuses to edit over a record that is not one', async () => {
    writeFileSync(servingFile(dir), '{ "active": "latest" }');
    const r = await models('promote', A);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/serving\.json: active: must be a model version.*fix or delete/);
    expect(readFileSync(servingFile(dir), 'utf8')).toBe('{ "active": "latest" }');
    rmSync(servingFile(dir));
  });

  it('shadow-report without REDIS_URL says what it needs (exit 1)', async () => {
    const r = await cli('cli/models.ts', ['shadow-report'], { MODELS_DIR: dir, REDIS_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('shadow-report reads the counts the service keeps in Redis: set REDIS_URL');
  });
});

describe('npm run models -- compare', () => {
  it('prints both models on the given records with the paired counts and the test', async () => {
    const file = path.join(repoRoot, 'test/fixtures/training/forms/mini.jsonl');
    const r = await models('compare', A, B, '--data', file);
    expect(r.code).toBe(0);
    // A and B are copies of the bundled model: the fixture's records that it trained on are left out, and counted.
    expect(r.stdout).toMatch(
      new RegExp(
        `^${A} → ${B} on \\d+ records of ${file} that neither model trained on \\(of 80: \\d+ were in ${A}'s training data, \\d+ were in ${B}'s training data\\)$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^held-out sets \(.*training\/holdout\), never trained on:$/m);
    expect(r.stdout).toMatch(/^ {2}b2b\.jsonl +174 /m);
    expect(r.stdout).toMatch(/^paired on \d+ records: both right \d+, both wrong \d+$/m);
    expect(r.stdout).toMatch(new RegExp(`^  fixed by ${B}  \\d+`, 'm'));
    expect(r.stdout).toMatch(/^McNemar exact test: p = /m);
  });

  it('a model that does not load is named (exit 1)', async () => {
    const r = await models('compare', A, BROKEN);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/weights\.bin (is shorter|does not match its digest)/);
  });
});
