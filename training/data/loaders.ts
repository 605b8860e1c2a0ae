import { closeSync, openSync, readFileSync, readSync, readdirSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import type { z } from 'zod';
import { WithdrawalSet, type WithdrawalRef } from '../../core/labels/withdrawal-match.ts';
import { decodeHtmlText } from './html-text.ts';
import { exportedLabelSchema, exportedWithdrawalSchema, formRecordSchema, recordLineSchema, type LabelledRecord } from './record.ts';

/** How much a moderator's label weighs: correcting the model teaches more than agreeing with it. */
export const LABEL_WEIGHTS = { contradicts: 3, confirms: 1 } as const;

export class DataError extends Error {
  override name = 'DataError';
}

/** A text file's lines; a leading UTF-8 byte-order mark (Windows editors write one) is not part of the first line. */
function readLines(file: string): string[] {
  return readFileSync(file, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
}

/** YouTube Spam Collection CSV (DATE?, CONTENT, CLASS 1 = spam). */
export function loadYoutubeCsv(file: string, source = 'youtube'): LabelledRecord[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(readFileSync(file), { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
  } catch (e) {
    // csv-parse's message already says which line; without the file's name it does not say where.
    if (e instanceof CsvError) throw new DataError(`${file}: ${e.message} (expected the YouTube CSV format: DATE?,CONTENT,CLASS)`);
    throw e;
  }
  const base = path.basename(file, '.csv');
  return rows.map((r, i) => {
    if (r.CONTENT === undefined || (r.CLASS !== '0' && r.CLASS !== '1')) throw new DataError(`${file}: row ${i + 2} lacks CONTENT or a CLASS of 0/1`);
    return { id: `${base}:${i + 1}`, source, label: r.CLASS === '1' ? 'spam' : 'legitimate', fields: { comment: decodeHtmlText(r.CONTENT) }, weight: 1 };
  });
}

/** SMS Spam Collection: `ham|spam<TAB>text` a line. */
export function loadSmsTsv(file: string, source = 'sms'): LabelledRecord[] {
  const out: LabelledRecord[] = [];
  readLines(file).forEach((line, i) => {
    if (line.trim() === '') return;
    const tab = line.indexOf('\t');
    const tag = line.slice(0, tab);
    if (tab < 0 || (tag !== 'ham' && tag !== 'spam')) throw new DataError(`${file}: line ${i + 1} is not "ham|spam<TAB>text"`);
    out.push({ id: `sms:${i + 1}`, source, label: tag === 'spam' ? 'spam' : 'legitimate', fields: { message: line.slice(tab + 1) }, weight: 1 });
  });
  return out;
}

/** One zod issue as a line of an error message: the field, then what is wrong with it. */
function describeIssue(issue: z.core.$ZodIssue | undefined, raw: unknown): string {
  if (!issue) return 'unknown record shape';
  const field = issue.path.join('.') || 'record';
  let value: unknown = raw;
  for (const key of issue.path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (issue.code === 'invalid_value') return `${field}: expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
  if (issue.code === 'invalid_type' && value === undefined) return `${field}: missing (expected ${issue.expected})`;
  return `${field}: ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}`;
}

/**
 * A line with a submissionId, labelledAt or withdrawn and no id is a line of the moderators' labels: a withdrawal when
 * it has `withdrawn`, a label otherwise, and is checked as one.
 */
function labelLineKind(raw: unknown): 'label' | 'withdrawal' | undefined {
  if (typeof raw !== 'object' || raw === null || 'id' in raw) return undefined;
  if ('withdrawn' in raw) return 'withdrawal';
  return 'submissionId' in raw || 'labelledAt' in raw ? 'label' : undefined;
}

/**
 * An exported label that a moderator undid, not trained on: which label records it takes back is withdrawal-match.ts's
 * rule, with `submissionId` the records' id (label:<submissionId>).
 */
export type Withdrawal = WithdrawalRef;

/** What one file holds: its records, and the moderators' labels it withdraws (labels files only). */
export interface LabelledFile {
  readonly records: LabelledRecord[];
  readonly withdrawals: Withdrawal[];
}

/**
 * The records without the label lines the withdrawals take back, by the export's own rule (withdrawal-match.ts): by
 * labelId, never another label of the same millisecond; older lines by submission and instant. A withdrawal whose
 * label is not among the records changes nothing; a later relabel is another line and stays.
 */
export function withoutWithdrawn(records: readonly LabelledRecord[], withdrawals: readonly Withdrawal[]): LabelledRecord[] {
  if (withdrawals.length === 0) return [...records];
  const gone = new WithdrawalSet();
  for (const w of withdrawals) gone.add(w);
  return records.filter((r) => r.labelledAt === undefined || !gone.takesBack({ submissionId: r.id, labelledAt: r.labelledAt, labelId: r.labelId }));
}

/**
 * JSON Lines of one of: the common record, a hand-written form record, an exported moderator label, or the
 * withdrawal of one (an undo after the export). Every record takes `source`, whatever a line's own source field says.
 */
export function readJsonl(file: string, source: string): LabelledFile {
  const out: LabelledRecord[] = [];
  const withdrawals: Withdrawal[] = [];
  readLines(file).forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new DataError(`${file}: line ${i + 1} is not valid JSON`);
    }
    const kind = labelLineKind(raw);
    if (kind === 'withdrawal') {
      const withdrawal = exportedWithdrawalSchema.safeParse(raw);
      if (!withdrawal.success) throw new DataError(`${file}: line ${i + 1}: ${describeIssue(withdrawal.error.issues[0], raw)}`);
      withdrawals.push({ submissionId: `label:${withdrawal.data.submissionId}`, withdrawn: withdrawal.data.withdrawn, labelId: withdrawal.data.labelId });
      return;
    }
    if (kind === 'label') {
      const label = exportedLabelSchema.safeParse(raw);
      if (!label.success) throw new DataError(`${file}: line ${i + 1}: ${describeIssue(label.error.issues[0], raw)}`);
      const l = label.data;
      const contradicts = l.modelStatus !== undefined && l.modelStatus !== l.label;
      out.push({
        id: `label:${l.submissionId}`,
        source,
        label: l.label,
        fields: l.fields,
        weight: contradicts ? LABEL_WEIGHTS.contradicts : LABEL_WEIGHTS.confirms,
        labelledAt: l.labelledAt,
        ...(l.labelId === undefined ? {} : { labelId: l.labelId }),
        ...(l.accountId === undefined ? {} : { accountId: l.accountId }),
      });
      return;
    }
    const form = formRecordSchema.safeParse(raw);
    if (form.success) {
      out.push({ id: form.data.id, source, label: form.data.label, fields: form.data.fields, weight: 1 });
      return;
    }
    const rec = recordLineSchema.safeParse(raw);
    if (!rec.success) throw new DataError(`${file}: line ${i + 1}: ${describeIssue(rec.error.issues[0], raw)}`);
    out.push({ ...rec.data, source });
  });
  return { records: out, withdrawals };
}

/** The records of a JSON Lines file, without the labels its own withdrawal lines take back. */
export function loadJsonl(file: string, source: string): LabelledRecord[] {
  const { records, withdrawals } = readJsonl(file, source);
  return withoutWithdrawn(records, withdrawals);
}

/** How each labelled file is read, by extension. */
const READERS: Readonly<Record<string, (file: string, source: string) => LabelledFile>> = {
  '.csv': (file, source) => ({ records: loadYoutubeCsv(file, source), withdrawals: [] }),
  '.tsv': (file, source) => ({ records: loadSmsTsv(file, source), withdrawals: [] }),
  '.txt': (file, source) => ({ records: loadSmsTsv(file, source), withdrawals: [] }),
  '.jsonl': readJsonl,
  '.ndjson': readJsonl,
};

/** What a data folder reads: not .txt, which is where its folders keep their provenance notes (SOURCE.txt). */
const DATA_DIR_EXTENSIONS: readonly string[] = ['.csv', '.tsv', '.jsonl', '.ndjson'];

function listExtensions(exts: readonly string[]): string {
  return `${exts.slice(0, -1).join(', ')} or ${exts.at(-1)}`;
}

/**
 * Any labelled file by its extension, with the label withdrawals it holds (they may take back labels of other files);
 * used by `npm run evaluate`. Its records' source is the file's name unless given.
 */
export function readLabelledFile(file: string, source?: string): LabelledFile {
  if (!existsSync(file)) throw new DataError(`data file not found: ${file}`);
  if (statSync(file).isDirectory()) throw new DataError(`${file} is a directory, not a data file: give each file in it with its own --data`);
  const ext = path.extname(file).toLowerCase();
  const read = READERS[ext] ?? readerByFirstLine(file);
  if (!read) {
    throw new DataError(
      `${file}: unknown format (expected ${listExtensions(Object.keys(READERS))}, or a first line that is "ham|spam<TAB>text", a JSON record or a CSV header with CONTENT and CLASS)`,
    );
  }
  return read(file, source ?? path.basename(file, path.extname(file)));
}

/**
 * The reader for a file whose extension names no format, by its first non-empty line: the UCI's own SMS file is
 * `SMSSpamCollection`, with no extension. A CSV is recognized by its header, a JSON Lines file by a line that opens
 * an object.
 */
function readerByFirstLine(file: string): ((file: string, source: string) => LabelledFile) | undefined {
  const fd = openSync(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(64 * 1024);
    head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '');
  if (first === undefined) return undefined;
  if (/^(ham|spam)\t/.test(first)) return READERS['.tsv'];
  if (first.trimStart().startsWith('{')) return READERS['.jsonl'];
  const columns = first.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  if (columns.includes('CONTENT') && columns.includes('CLASS')) return READERS['.csv'];
  return undefined;
}

/** Any labelled file's records, without the labels its own withdrawal lines take back. */
export function loadLabelledFile(file: string, source?: string): LabelledRecord[] {
  const { records, withdrawals } = readLabelledFile(file, source);
  return withoutWithdrawn(records, withdrawals);
}

export interface LoadedData {
  readonly records: LabelledRecord[];
  /** Every file read, with how many records it gave (label lines later withdrawn included). */
  readonly files: { path: string; records: number }[];
  /** Label lines left out because a withdrawal line took them back (a moderator's undo after the export). */
  readonly withdrawn: number;
}

/**
 * The repo's data folder: youtube/*.csv, sms/*.tsv, forms/*.jsonl and the moderators' labels/*.jsonl (.ndjson is
 * read as .jsonl). The source of a record is its folder's name. `only` keeps the files (`<folder>/<name>`) it accepts.
 */
export function loadDataDir(dir: string, only?: (relativePath: string) => boolean): LoadedData {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new DataError(`data folder not found: ${dir}`);
  const records: LabelledRecord[] = [];
  const withdrawals: Withdrawal[] = [];
  const files: { path: string; records: number }[] = [];
  for (const sub of readdirSync(dir).sort()) {
    const folder = path.join(dir, sub);
    if (!statSync(folder).isDirectory()) continue;
    for (const f of readdirSync(folder).sort()) {
      if (!DATA_DIR_EXTENSIONS.includes(path.extname(f).toLowerCase())) continue;
      // `only`: the files an older model's manifest lists, read in the same order, to rebuild what it trained on.
      if (only !== undefined && !only(`${sub}/${f}`)) continue;
      const file = path.join(folder, f);
      const loaded = readLabelledFile(file, sub);
      records.push(...loaded.records);
      withdrawals.push(...loaded.withdrawals);
      files.push({ path: file, records: loaded.records.length });
    }
  }
  if (records.length === 0) throw new DataError(`no labelled records under ${dir}`);
  // Withdrawals apply across files: a withdrawal line may sit in another file than the label it takes back.
  const kept = withoutWithdrawn(records, withdrawals);
  return { records: latestLabels(kept), files, withdrawn: records.length - kept.length };
}

/**
 * One record per moderated submission, the newest by labelledAt (a later line wins a tie): a relabel is a new
 * line, and the splitter would otherwise keep whichever label it met first. Withdrawn labels (an undo after the
 * export) are dropped first, so the label the undo restored, or none, is what remains.
 */
export function latestLabels(records: readonly LabelledRecord[], withdrawals: readonly Withdrawal[] = []): LabelledRecord[] {
  records = withoutWithdrawn(records, withdrawals);
  const newest = new Map<string, LabelledRecord>();
  for (const r of records) {
    if (r.labelledAt === undefined) continue;
    const kept = newest.get(r.id);
    if (!kept || Date.parse(r.labelledAt) >= Date.parse(kept.labelledAt as string)) newest.set(r.id, r);
  }
  return records.filter((r) => r.labelledAt === undefined || newest.get(r.id) === r);
}
