import { mkdir, open, readdir, readFile, truncate, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { exportedLabelSchema, type ExportedLabel, type LabelRecord } from './records.ts';
import type { ReviewStore } from './store.ts';

export interface ExportResult {
  readonly written: number;
  readonly files: readonly string[];
}

const PAGE = 500;

/** Held in the labels folder while an export writes there; a second export into the same folder is refused. */
export const EXPORT_LOCK = '.labels-export.lock';
const lockSchema = z.object({ pid: z.number().int(), host: z.string(), startedAt: z.string() });

/** Another export is writing to the same folder (a cron run and a manual one, say). */
export class ExportBusyError extends Error {
  override name = 'ExportBusyError';
}

/**
 * Writes every label not yet exported to `<dir>/<YYYY-MM-DD of labelledAt>.jsonl` and then marks it exported.
 * Idempotent twice over: exported labels leave the store's `unexported` index, and lines already in the
 * files (same submissionId and labelledAt, e.g. after a crash between write and mark) are not written again.
 * A relabel is a new line with a later labelledAt; the training loader keeps the latest per submissionId.
 */
export async function exportLabels(store: ReviewStore, dir: string): Promise<ExportResult> {
  await mkdir(dir, { recursive: true });
  // Two exports at once would both write the labels neither had acknowledged yet (duplicate lines), and one could
  // take the other's half-written last line for a crash fragment and cut it off after the other had acknowledged it.
  const release = await lock(dir);
  try {
    return await exportLocked(store, dir);
  } finally {
    await release();
  }
}

async function lock(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, EXPORT_LOCK);
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.write(JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
      } finally {
        await handle.close();
      }
      return () => unlink(file).catch(() => undefined);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = lockSchema.safeParse(await readJson(file));
    // A lock left by an export of this host that is no longer running (killed, crashed) is taken over once.
    if (attempt === 0 && holder.success && holder.data.host === hostname() && !alive(holder.data.pid)) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    const who = holder.success ? `pid ${holder.data.pid} on ${holder.data.host}, since ${holder.data.startedAt}` : 'unknown holder';
    throw new ExportBusyError(`another labels:export is writing to ${dir} (${who}); run again when it is done, or delete ${file} if no export is running`);
  }
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exportLocked(store: ReviewStore, dir: string): Promise<ExportResult> {
  const seen = await alreadyExported(dir);
  const files = new Set<string>();
  let written = 0;
  for (const accountId of await store.accounts()) {
    for (;;) {
      const page = await store.unexported(accountId, PAGE);
      if (page.length === 0) break;
      const byFile = new Map<string, string[]>();
      for (const { record } of page) {
        if (record === undefined) continue; // past retention before it was exported
        const key = seenKey(record);
        if (seen.has(key)) continue;
        seen.add(key);
        const file = `${record.labelledAt.slice(0, 10)}.jsonl`;
        const lines = byFile.get(file) ?? [];
        lines.push(JSON.stringify(exportLine(record)));
        byFile.set(file, lines);
      }
      for (const [file, lines] of byFile) {
        await appendDurably(path.join(dir, file), lines);
        files.add(file);
        written += lines.length;
      }
      const acked = await store.acknowledgeExported(accountId, page);
      if (acked === 0 || page.length < PAGE) break;
    }
  }
  return { written, files: [...files].sort() };
}

export function exportLine(record: LabelRecord): ExportedLabel {
  return {
    submissionId: record.submissionId,
    formId: record.formId,
    label: record.label,
    fields: record.fields,
    labelledAt: record.labelledAt,
    moderatorId: record.moderatorId,
    modelStatus: record.modelStatus,
    modelConfidence: record.modelConfidence,
  };
}

function seenKey(l: { submissionId: string; labelledAt: string; label: string; moderatorId: string }): string {
  return `${l.submissionId}|${l.labelledAt}|${l.label}|${l.moderatorId}`;
}

async function alreadyExported(dir: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const tornTails: { file: string; keep: number }[] = [];
  for (const name of await readdir(dir)) {
    if (!/^\d{4}-\d{2}-\d{2}\.jsonl$/.test(name)) continue;
    const file = path.join(dir, name);
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const label = parseLine(line);
      if (label === 'torn') {
        // Only an unterminated last line can be a write cut short; anything else is left for a person to read.
        if (i === lines.length - 1) tornTails.push({ file, keep: Buffer.byteLength(text) - Buffer.byteLength(line) });
      } else if (label !== undefined) seen.add(seenKey(label));
    });
  }
  // A torn last line is a crash mid-write: its label was never acknowledged, so it is written again in full, and
  // the fragment would stop `npm run train` (not valid JSON) until someone edited a file of personal data.
  for (const { file, keep } of tornTails) await truncate(file, keep);
  return seen;
}

/** The label on a line; undefined for JSON of another shape, 'torn' for text that is not JSON at all. */
function parseLine(line: string): ExportedLabel | 'torn' | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return 'torn';
  }
  const parsed = exportedLabelSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

async function appendDurably(file: string, lines: readonly string[]): Promise<void> {
  const handle = await open(file, 'a+', 0o600);
  try {
    // After a crash mid-line, start on a fresh line rather than glue onto the torn one.
    const { size } = await handle.stat();
    let lead = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) lead = '\n';
    }
    await handle.write(lead + lines.map((l) => `${l}\n`).join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
}
