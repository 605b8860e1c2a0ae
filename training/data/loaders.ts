import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { decodeHtmlText } from './html-text.ts';
import { exportedLabelSchema, formRecordSchema, recordSchema, type LabelledRecord } from './record.ts';

/** How much a moderator's label weighs: correcting the model teaches more than agreeing with it. */
export const LABEL_WEIGHTS = { contradicts: 3, confirms: 1 } as const;

export class DataError extends Error {
  override name = 'DataError';
}

/** YouTube Spam Collection CSV (DATE?, CONTENT, CLASS 1 = spam). */
export function loadYoutubeCsv(file: string, source = 'youtube'): LabelledRecord[] {
  const rows = parse(readFileSync(file), { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
  const base = path.basename(file, '.csv');
  return rows.map((r, i) => {
    if (r.CONTENT === undefined || (r.CLASS !== '0' && r.CLASS !== '1')) throw new DataError(`${file}: row ${i + 2} lacks CONTENT or a CLASS of 0/1`);
    return { id: `${base}:${i + 1}`, source, label: r.CLASS === '1' ? 'spam' : 'legitimate', fields: { comment: decodeHtmlText(r.CONTENT) }, weight: 1 };
  });
}

/** SMS Spam Collection: `ham|spam<TAB>text` a line. */
export function loadSmsTsv(file: string, source = 'sms'): LabelledRecord[] {
  const out: LabelledRecord[] = [];
  readFileSync(file, 'utf8').split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const tab = line.indexOf('\t');
    const tag = line.slice(0, tab);
    if (tab < 0 || (tag !== 'ham' && tag !== 'spam')) throw new DataError(`${file}: line ${i + 1} is not "ham|spam<TAB>text"`);
    out.push({ id: `sms:${i + 1}`, source, label: tag === 'spam' ? 'spam' : 'legitimate', fields: { message: line.slice(tab + 1) }, weight: 1 });
  });
  return out;
}

/** JSON Lines of one of: the common record, a hand-written form record, or an exported moderator label. */
export function loadJsonl(file: string, source: string): LabelledRecord[] {
  const out: LabelledRecord[] = [];
  readFileSync(file, 'utf8').split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new DataError(`${file}: line ${i + 1} is not valid JSON`);
    }
    const label = exportedLabelSchema.safeParse(raw);
    if (label.success) {
      const l = label.data;
      const contradicts = l.modelStatus !== undefined && l.modelStatus !== l.label;
      out.push({ id: `label:${l.submissionId}`, source, label: l.label, fields: l.fields, weight: contradicts ? LABEL_WEIGHTS.contradicts : LABEL_WEIGHTS.confirms, labelledAt: l.labelledAt });
      return;
    }
    const form = formRecordSchema.safeParse(raw);
    if (form.success) {
      out.push({ id: form.data.id, source, label: form.data.label, fields: form.data.fields, weight: 1 });
      return;
    }
    const rec = recordSchema.safeParse(raw);
    if (!rec.success) throw new DataError(`${file}: line ${i + 1}: ${rec.error.issues[0]?.message ?? 'unknown record shape'}`);
    out.push(rec.data);
  });
  return out;
}

/** Any labelled file by its extension; used by `npm run evaluate`. */
export function loadLabelledFile(file: string, source?: string): LabelledRecord[] {
  if (!existsSync(file) || !statSync(file).isFile()) throw new DataError(`data file not found: ${file}`);
  const ext = path.extname(file).toLowerCase();
  const name = source ?? path.basename(file, ext);
  if (ext === '.csv') return loadYoutubeCsv(file, name);
  if (ext === '.tsv' || ext === '.txt') return loadSmsTsv(file, name);
  if (ext === '.jsonl' || ext === '.ndjson') return loadJsonl(file, name);
  throw new DataError(`${file}: unknown format (expected .csv, .tsv or .jsonl)`);
}

export interface LoadedData {
  readonly records: LabelledRecord[];
  /** Every file read, with how many records it gave. */
  readonly files: { path: string; records: number }[];
}

/**
 * The repo's data folder: youtube/*.csv, sms/*.tsv, forms/*.jsonl and the moderators' labels/*.jsonl.
 * The source of a record is its folder's name.
 */
export function loadDataDir(dir: string): LoadedData {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new DataError(`data folder not found: ${dir}`);
  const records: LabelledRecord[] = [];
  const files: { path: string; records: number }[] = [];
  for (const sub of readdirSync(dir).sort()) {
    const folder = path.join(dir, sub);
    if (!statSync(folder).isDirectory()) continue;
    for (const f of readdirSync(folder).sort()) {
      if (!/\.(csv|tsv|jsonl)$/i.test(f)) continue;
      const file = path.join(folder, f);
      const loaded = loadLabelledFile(file, sub);
      records.push(...loaded);
      files.push({ path: file, records: loaded.length });
    }
  }
  if (records.length === 0) throw new DataError(`no labelled records under ${dir}`);
  return { records: latestLabels(records), files };
}

/**
 * One record per moderated submission, the newest by labelledAt (a later line wins a tie): a relabel is a new
 * line, and the splitter would otherwise keep whichever label it met first.
 */
export function latestLabels(records: readonly LabelledRecord[]): LabelledRecord[] {
  const newest = new Map<string, LabelledRecord>();
  for (const r of records) {
    if (r.labelledAt === undefined) continue;
    const kept = newest.get(r.id);
    if (!kept || Date.parse(r.labelledAt) >= Date.parse(kept.labelledAt as string)) newest.set(r.id, r);
  }
  return records.filter((r) => r.labelledAt === undefined || newest.get(r.id) === r);
}
