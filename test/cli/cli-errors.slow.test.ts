import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { cli } from './run-cli.ts';
import { MODEL_VERSION_PATTERN } from '../../core/classifier/manifest.ts';

// Version folders only: `npm run train` leaves a serving record (serving.json) beside them, which sorts last.
const bundledModel = path.join(
  'models',
  readdirSync(path.join(repoRoot, 'models'))
    .filter((n) => MODEL_VERSION_PATTERN.test(n))
    .sort()
    .at(-1) ?? '',
);
const missing = path.join(repoRoot, 'test/fixtures/training/does-not-exist');

describe('training CLIs on a missing path', () => {
  it('npm run train names the missing data folder in one line and exits 2', async () => {
    const r = await cli('cli/train.ts', ['--data', missing, '--out', path.join(missing, 'models')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`train: data folder not found: ${missing}`);
    // Uncaught, the error went through the WASM backend's handler, which printed its whole minified source.
    expect(r.stdout.length + r.stderr.length).toBeLessThan(500);
  }, 60_000);

  it('npm run evaluate names the missing data file in one line and exits 2', async () => {
    const r = await cli('cli/evaluate.ts', ['--model', bundledModel, '--data', `${missing}.jsonl`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`evaluate: data file not found: ${missing}.jsonl`);
  }, 60_000);
});

describe('npm run evaluate on an exported labels file', () => {
  it('scores each submission once, by its newest label, as training reads it', async () => {
    // Two lines for one submission (labelled spam, then relabelled legitimate) and one other spam label.
    const file = path.join(repoRoot, 'test/fixtures/training/labels/relabelled.jsonl');
    const r = await cli('cli/evaluate.ts', ['--model', bundledModel, '--data', file, '--json']);
    expect(r.code).toBe(0);
    const overall = (JSON.parse(r.stdout) as { overall: { n: number; spam: number } }).overall;
    expect(overall).toMatchObject({ n: 2, spam: 1 });
  }, 60_000);
});
