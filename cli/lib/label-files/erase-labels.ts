import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { lockLabelsDir } from './export-labels.ts';
import { readLabelsFile, type LabelsFileLine } from '../../../core/labels/labels-file.ts';
import { erasableLineSchema, type ErasableLine } from '../../../core/labels/records.ts';
import type { ErasedAccount, ErasedSubmission } from '../../../service/review/store/erasure.ts';
import type { ReviewStore } from '../../../service/review/store/review-store.ts';
import { replaceFile } from '../../../core/fs/replace-file.ts';
import { syncDir } from '../../../core/fs/sync-dir.ts';

/** Whose lines to erase: a line goes when it matches any of them. */
export interface EraseSelector {
  /** Every line naming this account, and every other line of the same submissions (older lines name no account). */
  readonly accountId?: string | undefined;
  /** Every line of these submissions. */
  readonly submissionIds?: readonly string[] | undefined;
  /** Every line of the submissions with a label line of these forms, of any account (form ids are unique across the tenants file). */
  readonly formIds?: readonly string[] | undefined;
}

export interface ErasedFile {
  readonly name: string;
  /** Lines removed from it (crash fragments included). */
  readonly removed: number;
  /** Nothing was left in it, so the file was deleted. */
  readonly deleted: boolean;
}

export interface EraseResult {
  readonly labels: number;
  readonly withdrawals: number;
  /** Distinct submissions whose lines were removed. */
  readonly submissions: number;
  /**
   * Unterminated last lines that are not JSON: what a crash cut short in the middle of an export. Whose they are cannot
   * be read, so they are removed (the export that crashed never acknowledged them: the next export writes them again
   * in full, unless they were the erased submissions' and are gone from the store too).
   */
  readonly torn: number;
  /** Files changed (rewritten, or deleted when nothing was left). */
  readonly files: readonly ErasedFile[];
  /**
   * With an account: label lines left in the files that name no account (exported before labels named their account),
   * counted by form, so the operator can tell whether some are the account's (then erase them by form or submission).
   */
  readonly unattributed: ReadonlyMap<string, number>;
  /** Lines that are no moderator's label or withdrawal (`<file>:<line>`), left as they are for a person to check. */
  readonly other: readonly string[];
  /** What the review store held and no longer holds; undefined when no store was given (or in a dry run). */
  readonly store: StoreErasure | undefined;
}

export interface StoreErasure {
  /** The account's keys, when an account was selected. */
  readonly account: ErasedAccount | undefined;
  /** Each selected submission (by --submission) the store held, with its account. */
  readonly submissions: readonly ErasedSubmission[];
}

/** What an erasure reads: JSON Lines, as training reads them (not the lock, nor a temporary file of an erasure). */
function isLabelsFile(name: string): boolean {
  return !name.startsWith('.') && /\.(jsonl|ndjson)$/i.test(name);
}

const TEMP_SUFFIX = '.erase-tmp';

interface ReadFile {
  readonly name: string;
  readonly lines: readonly LabelsFileLine<ErasableLine>[];
}

/**
 * Erases the selected submissions (a GDPR erasure request): from the review store when one is given, so that no later
 * export writes them again, then every line of them from every labels file in `dir` (`*.jsonl`, `*.ndjson`: what
 * training reads). Both run under the export lock, so no export into `dir` runs meanwhile. Each file is replaced
 * atomically: the lines kept are written to a temporary file in the same folder, fsync'd and renamed over it (the file
 * is deleted when nothing is left), so a crash leaves each file either as it was or erased, never half; running the
 * erasure again finishes the job. With `dryRun`, nothing is written (nor the store read), and the result says what
 * would be removed from the files.
 */
export async function eraseLabels(
  dir: string,
  selector: EraseSelector,
  opts: { dryRun?: boolean; store?: ReviewStore } = {},
): Promise<EraseResult> {
  const folder = await stat(dir).catch(() => undefined);
  if (folder === undefined || !folder.isDirectory()) throw new Error(`${dir} is not a folder of exported labels`);
  const dryRun = opts.dryRun ?? false;
  const release = await lockLabelsDir(dir, 'labels:erase');
  try {
    const store = opts.store === undefined || dryRun ? undefined : await eraseFromStore(opts.store, selector);
    return { ...(await eraseLocked(dir, selector, dryRun)), store };
  } finally {
    await release();
  }
}

async function eraseFromStore(store: ReviewStore, selector: EraseSelector): Promise<StoreErasure> {
  const account = selector.accountId === undefined ? undefined : await store.erasure.eraseAccount(selector.accountId);
  const submissions: ErasedSubmission[] = [];
  for (const id of selector.submissionIds ?? []) submissions.push(...(await store.erasure.eraseSubmission(id)));
  return { account, submissions };
}

async function eraseLocked(dir: string, selector: EraseSelector, dryRun: boolean): Promise<Omit<EraseResult, 'store'>> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  // A temporary file an erasure left behind when it crashed holds the lines it was keeping: none of them is needed
  // (the original is still there) and some may be of a submission to erase.
  if (!dryRun) for (const name of names.filter((n) => n.startsWith('.') && n.endsWith(TEMP_SUFFIX))) await unlink(path.join(dir, name));

  const files: ReadFile[] = [];
  for (const name of names.filter(isLabelsFile).sort())
    files.push({ name, lines: readLabelsFile(await readFile(path.join(dir, name), 'utf8'), erasableLineSchema) });

  const forms = new Set(selector.formIds ?? []);
  const chosen = new Set(selector.submissionIds ?? []);
  for (const { lines } of files) {
    for (const l of lines) {
      if (l.kind !== 'line') continue;
      if (
        (selector.accountId !== undefined && l.line.accountId === selector.accountId) ||
        (l.line.formId !== undefined && forms.has(l.line.formId))
      ) {
        chosen.add(l.line.submissionId);
      }
    }
  }
  const erased = (line: ErasableLine) =>
    chosen.has(line.submissionId) || (selector.accountId !== undefined && line.accountId === selector.accountId);

  let labels = 0;
  let withdrawals = 0;
  let torn = 0;
  const submissions = new Set<string>();
  const changed: ErasedFile[] = [];
  const unattributed = new Map<string, number>();
  const other: string[] = [];
  for (const { name, lines } of files) {
    const kept: string[] = [];
    let removed = 0;
    lines.forEach((l, i) => {
      if (l.kind === 'blank') return;
      if (l.kind === 'torn') {
        torn++;
        removed++;
        return;
      }
      if (l.kind === 'other') {
        other.push(`${name}:${i + 1}`);
        kept.push(l.text);
        return;
      }
      if (!erased(l.line)) {
        kept.push(l.text);
        if (selector.accountId !== undefined && l.line.withdrawn === undefined && l.line.accountId === undefined) {
          const form = l.line.formId ?? '(no form)';
          unattributed.set(form, (unattributed.get(form) ?? 0) + 1);
        }
        return;
      }
      removed++;
      submissions.add(l.line.submissionId);
      if (l.line.withdrawn === undefined) labels++;
      else withdrawals++;
    });
    if (removed === 0) continue;
    changed.push({ name, removed, deleted: kept.length === 0 });
    if (!dryRun) await replace(dir, name, kept);
  }
  return { labels, withdrawals, submissions: submissions.size, torn, files: changed, unattributed, other };
}

/** Replaces `dir/name` with `lines` (or deletes it when there are none), atomically and durably. */
async function replace(dir: string, name: string, lines: readonly string[]): Promise<void> {
  const file = path.join(dir, name);
  if (lines.length === 0) {
    await unlink(file);
    // The unlink is durable once the folder is.
    await syncDir(dir);
    return;
  }
  const { mode } = await stat(file);
  await replaceFile(file, lines.map((l) => `${l}\n`).join(''), path.join(dir, `.${name}${TEMP_SUFFIX}`), mode & 0o777);
}
