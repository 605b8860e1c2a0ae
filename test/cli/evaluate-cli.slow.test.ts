import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MODEL_VERSION_PATTERN } from '../../core/classifier/manifest.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { cli, type CliResult } from './run-cli.ts';

const evaluate = (args: string[]): Promise<CliResult> => cli('cli/evaluate.ts', args);

// Version folders only: `npm run train` leaves a serving record (serving.json) beside them, which sorts last.
const newest =
  readdirSync(path.join(repoRoot, 'models'))
    .filter((n) => MODEL_VERSION_PATTERN.test(n))
    .sort()
    .at(-1) ?? '';
const bundledModel = path.join('models', newest);
const tmp = mkdtempSync(path.join(tmpdir(), 'formguard-evaluate-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
}

// The fixture's form records, which the bundled model scores right: spam flagged, legitimate not.
const forms = readFileSync(path.join(repoRoot, 'test/fixtures/training/forms/mini.jsonl'), 'utf8').split('\n').filter(Boolean);
const spamOnly = file(
  'spam-only.jsonl',
  `${forms
    .filter((l) => l.includes('"label":"spam"'))
    .slice(0, 3)
    .join('\n')}\n`,
);
const legitOnly = file(
  'legit-only.jsonl',
  `${forms
    .filter((l) => l.includes('"label":"legitimate"'))
    .slice(0, 3)
    .join('\n')}\n`,
);

describe('npm run evaluate on one-class files', () => {
  it('prints n/a for the figures that class leaves undefined', async () => {
    const r = await evaluate(['--model', bundledModel, '--data', spamOnly, '--data', legitOnly]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n');
    // No legitimate records: no false-positive rate.
    expect(rows.find((l) => l.startsWith('spam-only'))).toMatch(/^spam-only\s+3\s+3\s+1\.000\s+1\.000\s+1\.000\s+n\/a\s+n\/a$/);
    // No spam: no recall or F1; nothing flagged: no precision.
    expect(rows.find((l) => l.startsWith('legit-only'))).toMatch(/^legit-only\s+3\s+0\s+n\/a\s+n\/a\s+n\/a\s+0\.00%\s+n\/a$/);
  }, 60_000);

  it('keeps the --json figures numeric, and --help mentions --json', async () => {
    const r = await evaluate(['--model', bundledModel, '--data', legitOnly, '--json']);
    const json = JSON.parse(r.stdout) as { overall: Record<string, unknown> };
    expect(json.overall).toMatchObject({ n: 3, spam: 0, precision: 0, recall: 0, f1: 0, fpr: 0, rocAuc: null });
    expect((await evaluate(['--help'])).stdout).toContain('--json');
  }, 60_000);
});

describe('npm run evaluate on a file without records', () => {
  it.each(['empty.jsonl', 'empty.csv', 'empty.tsv'])(
    '%s: says so and exits 2 instead of printing zeros',
    async (name) => {
      const p = file(name, name.endsWith('.csv') ? 'DATE,CONTENT,CLASS\n' : '');
      const r = await evaluate(['--model', bundledModel, '--data', p]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(`evaluate: no labelled records in ${p}`);
      expect(r.stdout).toBe('');
    },
    60_000,
  );
});

describe('npm run evaluate on a CSV file csv-parse cannot read', () => {
  it('names the file and line in one line and exits 2', async () => {
    const p = file('unclosed.csv', 'DATE,CONTENT,CLASS\n2014,"an unclosed quote,1\n2014,fine,0\n');
    const r = await evaluate(['--model', bundledModel, '--data', p]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(new RegExp(`^evaluate: ${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Quote Not Closed: .* at line 3 `));
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  }, 60_000);
});

describe('npm run evaluate with a bad command line', () => {
  it('names an unknown flag, prints the usage and exits 2', async () => {
    const r = await evaluate(['--jsn']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("evaluate: Unknown option '--jsn'");
    expect(r.stderr).toContain('npm run evaluate -- --model models/<version>');
  }, 60_000);
});

describe('npm run evaluate --model and --data paths', () => {
  it('loads a model folder whatever its name', async () => {
    const copy = path.join(tmp, 'mycopy');
    cpSync(path.join(repoRoot, bundledModel), copy, { recursive: true });
    const r = await evaluate(['--model', copy, '--data', spamOnly]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`model ${newest},`);
  }, 60_000);

  it('names the newest version when given the folder of versions', async () => {
    const r = await evaluate(['--model', 'models', '--data', spamOnly]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `evaluate: models is a folder of model versions; pass one, e.g. --model ${path.join('models', newest)} (the newest)`,
    );
  }, 60_000);

  it('says a --data directory is a directory', async () => {
    const r = await evaluate(['--model', bundledModel, '--data', tmp]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`evaluate: ${tmp} is a directory, not a data file: give each file in it with its own --data`);
  }, 60_000);

  it('names a missing weights file in one line and exits 2', async () => {
    const broken = path.join(tmp, 'no-weights');
    cpSync(path.join(repoRoot, bundledModel), broken, { recursive: true });
    rmSync(path.join(broken, 'weights.bin'));
    const r = await evaluate(['--model', broken, '--data', spamOnly]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`evaluate: ${path.join(broken, 'weights.bin')} is missing (model.json lists it)`);
  }, 60_000);
});

describe('npm run evaluate on the UCI SMS file under its own name (no extension)', () => {
  it('scores it as the SMS TSV format', async () => {
    const r = await evaluate(['--model', bundledModel, '--data', 'test/fixtures/training/formats/SMSSpamCollection']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.startsWith('SMSSpamCollection'))).toMatch(/^SMSSpamCollection\s+5\s+2\s/);
  }, 60_000);
});

describe('npm run evaluate --errors and --jsonl: each wrong record, with its score and reasoning, without a service', () => {
  // Four of the hand-written forms of sixty-new-forms.jsonl: a shop question, an invoice query and a casino link dump
  // as written, and a plain question about opening hours (wt-l02) labelled spam here on purpose. So the file holds one
  // wrong answer whichever model scores it (one that passes a plain question), and the test is about what the command
  // reports, not about which records a particular model happens to miss.
  const lines = readFileSync(path.join(repoRoot, 'test/fixtures/training/sixty-new-forms.jsonl'), 'utf8').split('\n');
  const pick = (id: string) => lines.find((l) => l.includes(`"id": "${id}"`)) as string;
  const mislabelled = pick('wt-l02').replace('"label": "legitimate"', '"label": "spam"');
  const small = file('four-forms.jsonl', `${[pick('wt-l01'), pick('wt-l04'), pick('wt-s01'), mislabelled].join('\n')}\n`);
  const threshold = (JSON.parse(readFileSync(path.join(repoRoot, bundledModel, 'manifest.json'), 'utf8')) as { threshold: number })
    .threshold;

  it('--errors lists the wrong record only, and the confusion table counts it per source', async () => {
    const r = await evaluate(['--model', bundledModel, '--data', small, '--errors']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^four-forms\s+1\s+1\s+0\s+2\s*$/m);
    expect(r.stdout).toContain('1 of 4 records wrong');
    expect(r.stdout).toMatch(
      /^ {2}wt-l02 \[four-forms\] labelled spam, scored legitimate at p\(spam\) \d\.\d{3}: (Likely|Borderline) legitimate \(\d\.\d\d\): .+/m,
    );
    expect(r.stdout).not.toMatch(/^ {2}wt-(l01|l04|s01) /m);
  }, 60_000);

  it('--jsonl writes every record with its verdict, probability and reasoning', async () => {
    const out = path.join(tmp, 'verdicts.jsonl');
    const r = await evaluate(['--model', bundledModel, '--data', small, '--jsonl', out]);
    expect(r.code).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => [x.id, x.correct])).toEqual([
      ['wt-l01', true],
      ['wt-l04', true],
      ['wt-s01', true],
      ['wt-l02', false],
    ]);
    expect(rows[2]).toMatchObject({ label: 'spam', status: 'spam', reasoning: expect.stringMatching(/^(Likely|Borderline) spam/) });
    expect(rows[2]?.spamProbability).toBeGreaterThanOrEqual(threshold);
    expect(rows[3]).toMatchObject({
      label: 'spam',
      status: 'legitimate',
      reasoning: expect.stringMatching(/^(Likely|Borderline) legitimate/),
    });
    expect(rows[3]?.spamProbability).toBeLessThan(threshold);
  }, 60_000);
});
