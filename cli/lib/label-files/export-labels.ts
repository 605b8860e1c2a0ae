import { open, readdir, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  storedLabelLineSchema,
  storedWithdrawalLineSchema,
  type ExportedLabel,
  type LabelRecord,
  type LabelWithdrawal,
  type StoredLabelLine,
  type StoredWithdrawalLine,
} from '../../../core/labels/records.ts';
import { readLabelsFile } from '../../../core/labels/labels-file.ts';
import { makeDir } from '../../../core/fs/make-dir.ts';
import { syncDir } from '../../../core/fs/sync-dir.ts';
import { withSyncedFile } from '../../../core/fs/synced-file.ts';
import type { ExportLedger, WithdrawalEntry } from '../../../service/review/store/export-ledger.ts';
import { LabelLineSet, WithdrawalSet } from '../../../core/labels/withdrawal-match.ts';

export interface ExportResult {
  /** Label lines written. */
  readonly written: number;
  /** Withdrawal lines written: exported labels a moderator has undone since. */
  readonly withdrawn: number;
  readonly files: readonly string[];
}

const PAGE = 500;

/**
 * Held in the labels folder while an export (or an erasure, `labels:erase`) writes there; a second one into the same
 * folder is refused.
 */
export const EXPORT_LOCK = '.labels-export.lock';
/** `command`: which tool holds it (locks written before erasure existed have none: an export). */
const lockSchema = z.object({ pid: z.number().int(), host: z.string(), startedAt: z.string(), command: z.string().optional() });
export type LabelsCommand = 'labels:export' | 'labels:erase';

/** Another export or erasure is writing to the same folder (a cron run and a manual one, say). */
export class ExportBusyError extends Error {
  override name = 'ExportBusyError';
}

/**
 * Writes every label not yet exported to `<dir>/<YYYY-MM-DD of labelledAt>.jsonl` and then marks it exported.
 * Idempotent twice over: exported labels leave the store's `unexported` index, and lines already in the
 * files (the same labelId, e.g. after a crash between write and mark) are not written again.
 * A relabel is a new line with a later labelledAt; the training loader keeps the latest per submissionId.
 * An undo of a label whose line is in the files appends a withdrawal line (`{submissionId, labelId, accountId,
 * withdrawn: labelledAt, withdrawnAt}`) beside it, acknowledged and never repeated the same way; the training loader
 * drops the label line with that labelId.
 */
export async function exportLabels(ledger: ExportLedger, dir: string): Promise<ExportResult> {
  await makeDir(dir);
  // Two exports at once would both write the labels neither had acknowledged yet (duplicate lines), and one could
  // take the other's half-written last line for a crash fragment and cut it off after the other had acknowledged it.
  const release = await lockLabelsDir(dir, 'labels:export');
  try {
    return await exportLocked(ledger, dir);
  } finally {
    await release();
  }
}

/**
 * Takes the labels folder's lock for `command`, or throws ExportBusyError naming who holds it; resolves to its release.
 * Exports and erasures take the same lock: an erasure must not rewrite a file an export is appending to.
 */
export async function lockLabelsDir(dir: string, command: LabelsCommand): Promise<() => Promise<void>> {
  const file = path.join(dir, EXPORT_LOCK);
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.write(JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), command }));
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
    const other = holder.success ? (holder.data.command ?? 'labels:export') : 'labels:export';
    throw new ExportBusyError(
      `another ${other} is writing to ${dir} (${who}); run again when it is done, or delete ${file} if no ${other} is running`,
    );
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

async function exportLocked(ledger: ExportLedger, dir: string): Promise<ExportResult> {
  const inFiles = await alreadyExported(dir);
  const files = new Set<string>();
  let written = 0;
  let withdrawn = 0;
  for (const accountId of await ledger.accounts()) {
    for (;;) {
      const page = await ledger.unexported(accountId, PAGE);
      if (page.length === 0) break;
      const byFile = new Map<string, string[]>();
      for (const { record } of page) {
        if (record === undefined) continue; // past retention before it was exported
        if (inFiles.hasLabel(record)) continue;
        const line = exportLine(record);
        inFiles.addLabel(line);
        addLine(byFile, record.labelledAt, line);
      }
      written += await appendAll(dir, byFile, files);
      const acked = await ledger.acknowledgeExported(accountId, page);
      if (acked === 0 || page.length < PAGE) break;
    }
    // After this account's labels: an undo of a label this run has just written (before its acknowledgement) is
    // recorded as not exported, and is found here among the lines written, so its withdrawal goes out in this run.
    for (;;) {
      const page = await ledger.withdrawals(accountId, PAGE);
      if (page.length === 0) break;
      const byFile = new Map<string, string[]>();
      for (const { entry, withdrawnAt } of page) {
        if (entry === undefined) continue;
        // An undone label that never reached the files needs no withdrawal line; one already written needs no second.
        if (inFiles.hasWithdrawal(entry) || (!entry.exported && !inFiles.holdsLineOf(entry))) continue;
        const line: LabelWithdrawal = {
          submissionId: entry.submissionId,
          ...(entry.labelId === undefined ? {} : { labelId: entry.labelId }),
          accountId,
          withdrawn: entry.withdrawn,
          withdrawnAt,
        };
        inFiles.addWithdrawal(line);
        // Beside the label line it withdraws (same date), so `npm run evaluate` on that one file sees both.
        addLine(byFile, entry.withdrawn, line);
      }
      withdrawn += await appendAll(dir, byFile, files);
      await ledger.acknowledgeWithdrawals(
        accountId,
        page.map((w) => w.member),
      );
      if (page.length < PAGE) break;
    }
  }
  return { written, withdrawn, files: [...files].sort() };
}

/** Appends each file's lines durably and notes the file in `files`; returns how many lines were written. */
async function appendAll(dir: string, byFile: Map<string, string[]>, files: Set<string>): Promise<number> {
  let count = 0;
  for (const [file, lines] of byFile) {
    await appendDurably(path.join(dir, file), lines);
    files.add(file);
    count += lines.length;
  }
  return count;
}

function addLine(byFile: Map<string, string[]>, at: string, line: ExportedLabel | LabelWithdrawal): void {
  const file = `${at.slice(0, 10)}.jsonl`;
  const lines = byFile.get(file) ?? [];
  lines.push(JSON.stringify(line));
  byFile.set(file, lines);
}

export function exportLine(record: LabelRecord): ExportedLabel {
  return {
    submissionId: record.submissionId,
    ...(record.labelId === undefined ? {} : { labelId: record.labelId }),
    accountId: record.accountId,
    formId: record.formId,
    label: record.label,
    fields: record.fields,
    labelledAt: record.labelledAt,
    moderatorId: record.moderatorId,
    modelStatus: record.modelStatus,
    modelConfidence: record.modelConfidence,
    ...(record.how === undefined ? {} : { how: record.how }),
  };
}

/** A label line without a labelId (exported before labels had ids), as the export knew it: by what it says. */
function seenKey(l: { submissionId: string; labelledAt: string; label: string; moderatorId?: string | undefined }): string {
  return `${l.submissionId}|${l.labelledAt}|${l.label}|${l.moderatorId ?? ''}`;
}

/**
 * The lines the folder's files hold, as the export needs them. A label is known by its labelId, a line written before
 * labels had ids by what it says (seenKey); which lines a withdrawal takes back is withdrawal-match.ts's to say.
 */
class InFiles {
  /** Label lines: `id:<labelId>`, or `at:<seenKey>` for a line without a labelId. */
  readonly #labels = new Set<string>();
  readonly #labelLines = new LabelLineSet();
  readonly #withdrawals = new WithdrawalSet();

  addLabel(line: StoredLabelLine): void {
    this.#labelLines.add(line);
    this.#labels.add(line.labelId !== undefined ? `id:${line.labelId}` : `at:${seenKey(line)}`);
  }

  /** This label's line is in the files: by its id, or, written by an older export, by what it says. */
  hasLabel(record: LabelRecord): boolean {
    return (record.labelId !== undefined && this.#labels.has(`id:${record.labelId}`)) || this.#labels.has(`at:${seenKey(record)}`);
  }

  /** The line of the label this undo took back is in the files (so it needs withdrawing). */
  holdsLineOf(entry: WithdrawalEntry): boolean {
    return this.#labelLines.anyTakenBackBy(entry);
  }

  addWithdrawal(line: StoredWithdrawalLine): void {
    this.#withdrawals.add(line);
  }

  /** A withdrawal line already takes this label back. */
  hasWithdrawal(entry: WithdrawalEntry): boolean {
    return this.#withdrawals.takesBack({ submissionId: entry.submissionId, labelledAt: entry.withdrawn, labelId: entry.labelId });
  }
}

/** Any line an export may find in its files: a label or a withdrawal (one has `withdrawn`, the other cannot). */
const storedLineSchema = z.union([storedLabelLineSchema, storedWithdrawalLineSchema]);

async function alreadyExported(dir: string): Promise<InFiles> {
  const found = new InFiles();
  const tornTails: { file: string; keep: number }[] = [];
  for (const name of await readdir(dir)) {
    if (!/^\d{4}-\d{2}-\d{2}\.jsonl$/.test(name)) continue;
    const file = path.join(dir, name);
    const text = await readFile(file, 'utf8');
    for (const l of readLabelsFile(text, storedLineSchema)) {
      if (l.kind === 'torn') tornTails.push({ file, keep: Buffer.byteLength(text) - Buffer.byteLength(l.text) });
      else if (l.kind === 'line') {
        if ('withdrawn' in l.line) found.addWithdrawal(l.line);
        else found.addLabel(l.line);
      }
    }
  }
  // A torn last line is a crash mid-write: its label (or withdrawal) was never acknowledged, so it is written again in
  // full, and the fragment would stop `npm run train` (not valid JSON) until someone edited a file of personal data.
  for (const { file, keep } of tornTails) await truncateDurably(file, keep);
  return found;
}

/** Cut a torn tail, fsync'd: else a crash could bring the fragment back behind lines appended to another file. */
function truncateDurably(file: string, keep: number): Promise<void> {
  return withSyncedFile(file, 'r+', undefined, (handle) => handle.truncate(keep));
}

async function appendDurably(file: string, lines: readonly string[]): Promise<void> {
  let created = false;
  await withSyncedFile(file, 'a+', 0o600, async (handle) => {
    // After a crash mid-line, start on a fresh line rather than glue onto the torn one.
    const { size } = await handle.stat();
    created = size === 0;
    let lead = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) lead = '\n';
    }
    await handle.write(lead + lines.map((l) => `${l}\n`).join(''));
  });
  // A new file is durable only once its name in the folder is; its labels are acknowledged (never written again) next.
  if (created) await syncDir(path.dirname(file));
}
