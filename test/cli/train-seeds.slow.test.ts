import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { cli } from './run-cli.ts';

const fixture = path.join(repoRoot, 'test/fixtures/training');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Trains the fixture into a folder of its own and returns the exported model's folder. */
async function train(extra: string[]): Promise<string> {
  const out = mkdtempSync(path.join(tmpdir(), 'fg-train-seeds-'));
  dirs.push(out);
  const r = await cli('cli/train.ts', [
    '--data',
    fixture,
    '--out',
    out,
    '--epochs',
    '2',
    '--seed',
    '3',
    '--target-fpr',
    '0.05',
    '--backend',
    'cpu',
    ...extra,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [version] = readdirSync(out);
  return path.join(out, version as string);
}

const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));

describe('npm run train --training-seed and --source-weights', () => {
  it('retrains on the same split with another training seed, and records the weights per source and label', async () => {
    const a = await train([]);
    const b = await train(['--training-seed', '11', '--source-weights', 'forms=6,forms:legitimate=9']);
    const ma = manifest(a);
    const mb = manifest(b);
    // The same split: the same records on each side, so the same list of training texts.
    expect(mb.data.split.seed).toBe(3);
    expect(mb.data.splits).toEqual(ma.data.splits);
    expect(readFileSync(path.join(b, 'trained-on.txt'), 'utf8')).toBe(readFileSync(path.join(a, 'trained-on.txt'), 'utf8'));
    // Another training: its own seed, its own weights.
    expect(ma.parameters.seed).toBe(3);
    expect(mb.parameters.seed).toBe(11);
    expect(ma.parameters.sourceWeights).toEqual({ forms: 6 });
    expect(mb.parameters.sourceWeights).toEqual({ forms: 6, 'forms:legitimate': 9 });
    expect(readFileSync(path.join(b, 'weights.bin'))).not.toEqual(readFileSync(path.join(a, 'weights.bin')));
  }, 180_000);
});
