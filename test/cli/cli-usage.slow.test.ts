import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { cli } from './run-cli.ts';

const run = promisify(execFile);

const tmp = mkdtempSync(path.join(tmpdir(), 'formguard-train-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = path.join(repoRoot, 'test/fixtures/training');

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

describe('npm run train with a bad command line', () => {
  it.each([
    [['--epoch', '2'], "train: Unknown option '--epoch'"],
    [['--seed=-1'], 'train: --seed must be an integer from 0 to 2147483648, got -1'],
    [['--backend', 'foo'], 'train: --backend must be one of wasm|cpu|tensorflow, got foo'],
    [['--training-seed', 'x'], 'train: --training-seed must be an integer from 0 to 2147483648, got x'],
    [['--account-threshold', 'max'], 'train: --account-threshold must be one of none|flags|mean|soft, got max'],
    [
      ['--source-weights', 'forms=6,forms:ham=9'],
      'train: --source-weights takes <source>[:spam|:legitimate]=<positive number>, comma-separated; got forms:ham=9',
    ],
  ])(
    '%j: one line naming the problem, then the usage, exit 2',
    async (args, message) => {
      const r = await cli('cli/train.ts', ['--data', fixture, '--out', tmp, ...args]);
      expect(r.code).toBe(2);
      expect(firstLine(r.stderr)).toBe(message);
      expect(r.stderr).toContain('npm run train -- [--data data]');
    },
    60_000,
  );

  it('turns a dash-led value (--seed -1) into one line, not a parseArgs stack', async () => {
    const r = await cli('cli/train.ts', ['--data', fixture, '--out', tmp, '--seed', '-1']);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toMatch(/^train: Option '--seed' argument is ambiguous\. .*'--seed=-XYZ'\.$/);
    expect(r.stderr).not.toContain('ERR_PARSE_ARGS');
  }, 60_000);
});

const tfjsNodeInstalled = (() => {
  try {
    createRequire(path.join(repoRoot, 'package.json')).resolve('@tensorflow/tfjs-node');
    return true;
  } catch {
    return false;
  }
})();

describe('npm run train --backend tensorflow', () => {
  it.skipIf(tfjsNodeInstalled)(
    'says @tensorflow/tfjs-node is not installed instead of training on cpu',
    async () => {
      const r = await cli('cli/train.ts', ['--data', fixture, '--out', tmp, '--epochs', '1', '--backend', 'tensorflow']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        'train: @tensorflow/tfjs-node is not installed (npm install @tensorflow/tfjs-node, or use --backend wasm or cpu)',
      );
      expect(r.stdout).not.toContain('exported');
    },
    60_000,
  );
});

describe('npm run train on a CSV file csv-parse cannot read', () => {
  it('names the file and line in one line and exits 2', async () => {
    // An SMS TSV renamed .csv: the header row has one column, a line with a comma has two.
    const data = path.join(tmp, 'tsv-as-csv');
    mkdirSync(path.join(data, 'youtube'), { recursive: true });
    const file = path.join(data, 'youtube/sms.csv');
    writeFileSync(file, 'ham\tsee you at six\nspam\tWIN a prize, text now\n');
    const r = await cli('cli/train.ts', ['--data', data, '--out', tmp]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^train: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Invalid Record Length: .* on line 2 `),
    );
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  }, 60_000);
});

// util-linux's script(1) gives the process a pseudo-terminal, so stdout.isTTY is true as in a person's shell.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('npm run train on a terminal', () => {
  it.skipIf(!hasScript)(
    'prints the loaded and split summaries above the progress bar, not the epoch lines',
    async () => {
      const cmd = ['node', '--import', 'tsx', 'cli/train.ts', '--data', fixture, '--out', path.join(tmp, 'tty'), '--epochs', '1'];
      const { stdout } = await run('script', ['-qec', cmd.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: repoRoot });
      expect(stdout).toContain('batches');
      expect(stdout).toMatch(/loaded \d+ records from \d+ files \(backend \w+\)/);
      expect(stdout).toMatch(/split: train \d+, validation \d+, test \d+/);
      expect(stdout).not.toMatch(/epoch 1\/1/);
      expect(stdout).toContain('exported');
    },
    120_000,
  );
});
