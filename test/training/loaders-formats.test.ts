import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataError, loadDataDir, loadLabelledFile } from '../../training/data/loaders.ts';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor } from '../../core/features/index.ts';

const SUBMISSION = '0b8f6a52-4c1e-4d8e-9a57-2f3c1d9e7b10';
const GOOD_LABEL = {
  submissionId: SUBMISSION,
  formId: 'contact',
  label: 'spam',
  fields: { message: 'cheap backlinks' },
  labelledAt: '2026-11-20T09:00:00.000Z',
};
let dir = '';

/** A data folder of `folder/file` → lines. */
function dataDir(files: Record<string, string[]>): string {
  dir = mkdtempSync(path.join(tmpdir(), 'formguard-loaders-'));
  for (const [name, lines] of Object.entries(files)) {
    mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
    writeFileSync(path.join(dir, name), lines.length ? `${lines.join('\n')}\n` : '');
  }
  return dir;
}

function labelLine(overrides: object): string {
  return JSON.stringify({ ...GOOD_LABEL, ...overrides });
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a malformed moderator label line', () => {
  it.each([
    [{ label: 'ham' }, 'label: expected "spam" or "legitimate"'],
    [{ submissionId: 'abc-123' }, 'submissionId: invalid UUID'],
    [{ modelConfidence: 1.5 }, 'modelConfidence: too big: expected number to be <=1'],
    [{ formId: undefined }, 'formId: missing (expected string)'],
    [{ accountId: '' }, 'accountId: too small: expected string to have >=1 characters'],
    [{ labelId: 'label-1' }, 'labelId: invalid UUID'],
  ])("names the label field at fault (%o), not the generic record's id", (bad, message) => {
    const root = dataDir({ 'labels/2026-11-20.jsonl': [labelLine(bad)] });
    const file = path.join(root, 'labels/2026-11-20.jsonl');
    expect(() => loadDataDir(root)).toThrow(new DataError(`${file}: line 1: ${message}`));
  });

  it.each([
    [{ withdrawn: 'yesterday' }, 'withdrawn: invalid ISO datetime'],
    [{ submissionId: 'abc-123' }, 'submissionId: invalid UUID'],
    [{ submissionId: undefined }, 'submissionId: missing (expected string)'],
    [{ accountId: 7 }, 'accountId: invalid input: expected string, received number'],
    [{ labelId: 'label-1' }, 'labelId: invalid UUID'],
  ])('names the field at fault in a withdrawal line (%o)', (bad, message) => {
    const withdrawal = { submissionId: SUBMISSION, withdrawn: GOOD_LABEL.labelledAt, withdrawnAt: '2026-11-21T09:00:00.000Z', ...bad };
    const root = dataDir({ 'labels/2026-11-20.jsonl': [labelLine({}), JSON.stringify(withdrawal)] });
    const file = path.join(root, 'labels/2026-11-20.jsonl');
    expect(() => loadDataDir(root)).toThrow(new DataError(`${file}: line 2: ${message}`));
  });

  it('accepts a labelledAt with a UTC offset and orders relabels by the instant it names', () => {
    // 09:30+01:00 is 08:30Z: the later line is the older label, so the Z line's "spam" stays.
    const root = dataDir({
      'labels/a.jsonl': [
        labelLine({ label: 'spam', labelledAt: '2026-11-20T09:00:00Z' }),
        labelLine({ label: 'legitimate', labelledAt: '2026-11-20T09:30:00+01:00' }),
      ],
    });
    expect(loadDataDir(root).records.map((r) => r.label)).toEqual(['spam']);
  });
});

describe("a record's source under a data folder", () => {
  it("is the folder's name, whatever the line's own source field says", () => {
    const root = dataDir({
      'forms/extra.jsonl': [
        JSON.stringify({ id: 'r1', source: 'web', label: 'spam', fields: { message: 'cheap backlinks' } }),
        // With the folder deciding, a line need not repeat its source.
        JSON.stringify({ id: 'r2', label: 'legitimate', fields: { message: 'is the workshop still open?' } }),
      ],
    });
    expect(loadDataDir(root).records.map((r) => r.source)).toEqual(['forms', 'forms']);
  });
});

describe('file extensions', () => {
  it('reads .ndjson in a data folder as JSON Lines', () => {
    const root = dataDir({ 'labels/a.ndjson': [labelLine({})] });
    expect(loadDataDir(root).files.map((f) => path.basename(f.path))).toEqual(['a.ndjson']);
  });

  it('lists every accepted extension when a file has none of them', () => {
    const root = dataDir({ 'forms/notes.md': ['# notes'] });
    const file = path.join(root, 'forms/notes.md');
    expect(() => loadLabelledFile(file)).toThrow(
      `${file}: unknown format (expected .csv, .tsv, .txt, .jsonl or .ndjson, or a first line that is "ham|spam<TAB>text", a JSON record or a CSV header with CONTENT and CLASS)`,
    );
  });
});

describe('a CSV file csv-parse cannot read', () => {
  it('is a DataError naming the file and the line', () => {
    const root = dataDir({ 'youtube/broken.csv': ['DATE,CONTENT,CLASS', '2014,"an unclosed quote,1', '2014,fine,0'] });
    const file = path.join(root, 'youtube/broken.csv');
    expect(() => loadDataDir(root)).toThrow(DataError);
    expect(() => loadDataDir(root)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Quote Not Closed: .* at line 3 `));
  });
});

describe('a YouTube comment as the export renders it', () => {
  const rows = [
    'COMMENT_ID,AUTHOR,DATE,CONTENT,CLASS',
    // YouTube wrapped the timestamp and the link the commenter typed in anchors; the commenter typed neither tag.
    '1,a,2014,"best part <a href=""http://www.youtube.com/watch?v=KQ6zr6kCPj8&amp;t=2m19s"">2:19</a>",0',
    '2,b,2014,"my song <a href=""https://soundcloud.com/x/y"">https://soundcloud.com/x/y</a><br />sub!",1',
    '3,c,2014,"I typed &lt;a href=&quot;http://x.example&quot;&gt;this&lt;/a&gt; &lt;3",1',
    '4,d,2014,"<a href=""https://plus.google.com/s/%23RapGod"">#RapGod</a> subscribe to <span class=""proflinkWrapper""><span class=""proflinkPrefix"">+</span><a class=""proflink"" href=""https://plus.google.com/1049"">SuperMarioLogan</a></span> <b>1B</b>",1',
  ];

  it('keeps what the commenter typed: the timestamp, the link as plain text, a hashtag and a mention, escaped markup as markup', () => {
    const root = dataDir({ 'youtube/Youtube01-Test.csv': rows });
    expect(loadDataDir(root).records.map((r) => r.fields.comment)).toEqual([
      'best part 2:19',
      'my song https://soundcloud.com/x/y\nsub!',
      'I typed <a href="http://x.example">this</a> <3',
      '#RapGod subscribe to +SuperMarioLogan 1B',
    ]);
  });

  it("gives a timestamp or a hashtag no link and YouTube's own link no markup-link feature", () => {
    const root = dataDir({ 'youtube/Youtube01-Test.csv': rows });
    const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);
    const [stamp, link, typed, tags] = loadDataDir(root).records.map((r) => [...extractor.extract(r.fields).structure]);
    expect(tags).toContain('links=0');
    expect(stamp).toContain('links=0');
    // With link kinds (the default since they replaced link counts), one link is its kind: YouTube's soundcloud link is "other".
    expect(link).toContain('link:other');
    expect(link).not.toContain('links=0');
    expect(link).not.toContain('markup-link');
    expect(typed).toContain('markup-link');
  });
});

describe('a file that starts with a UTF-8 byte-order mark (as Windows editors save it)', () => {
  it.each([
    ['sms/bom.tsv', ['\uFEFFspam\tWIN a prize! Text WIN to 80080', 'ham\tsee you at 8']],
    [
      'forms/bom.jsonl',
      [
        `\uFEFF${JSON.stringify({ id: 'r1', label: 'spam', fields: { message: 'cheap backlinks' } })}`,
        JSON.stringify({ id: 'r2', label: 'legitimate', fields: { message: 'is the workshop still open?' } }),
      ],
    ],
    ['youtube/bom.csv', ['\uFEFFDATE,CONTENT,CLASS', '2014,check my channel,1', '2014,great song,0']],
  ])('%s: reads its first line like any other', (name, lines) => {
    const root = dataDir({ [name]: lines });
    expect(loadLabelledFile(path.join(root, name)).map((r) => r.label)).toEqual(['spam', 'legitimate']);
  });
});

describe("a file without a known extension (the UCI's own SMS file is named SMSSpamCollection)", () => {
  const fixtures = path.join(import.meta.dirname, '../fixtures/training/formats');

  it.each([
    ['SMSSpamCollection', ['legitimate', 'spam', 'legitimate', 'spam', 'legitimate']],
    ['Youtube01-comments', ['spam', 'legitimate', 'spam']],
    ['records', ['spam', 'legitimate']],
  ])('%s: is read by its first line, its name is its source', (name, labels) => {
    const records = loadLabelledFile(path.join(fixtures, name));
    expect(records.map((r) => r.label)).toEqual(labels);
    expect(new Set(records.map((r) => r.source))).toEqual(new Set([name]));
  });

  it("keeps the SMS text whole and the CSV comment's line break", () => {
    expect(loadLabelledFile(path.join(fixtures, 'SMSSpamCollection'))[1]?.fields).toEqual({
      message: 'URGENT! You have won a 900 prize. Call 09061700000 now to claim, T&C apply',
    });
    expect(loadLabelledFile(path.join(fixtures, 'Youtube01-comments'))[1]?.fields).toEqual({
      comment: 'This song never gets old,\nstill love it',
    });
  });

  it('is read the same with another extension (SMSSpamCollection.test)', () => {
    const root = dataDir({ 'sms/SMSSpamCollection.test': ['ham\tsee you at 8', 'spam\tWIN a prize! Text WIN to 80080'] });
    expect(loadLabelledFile(path.join(root, 'sms/SMSSpamCollection.test')).map((r) => [r.source, r.label])).toEqual([
      ['SMSSpamCollection', 'legitimate'],
      ['SMSSpamCollection', 'spam'],
    ]);
  });

  it.each([
    ['notes', ['# notes']],
    ['empty', []],
  ])('%s: neither format is still an unknown format', (name, lines) => {
    const root = dataDir({ [`forms/${name}`]: lines });
    const file = path.join(root, `forms/${name}`);
    expect(() => loadLabelledFile(file)).toThrow(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: unknown format \\(expected \\.csv, \\.tsv, \\.txt, \\.jsonl or \\.ndjson`,
      ),
    );
  });

  it('is not read from a data folder, which keeps its notes in files such as readme', () => {
    const root = dataDir({ 'sms/readme': ['spam\tnot a record'], 'sms/a.tsv': ['ham\tsee you at 8'] });
    expect(loadDataDir(root).records).toHaveLength(1);
  });
});
