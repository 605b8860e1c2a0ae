// npm run labels:erase -- --account <id> | --submission <id> | --form <id> [--dir data/labels] [--dry-run] [--files-only]:
// erases submitted content (a GDPR erasure request) from the exported label files and the review store.
import path from 'node:path';
import { repoRoot } from '../core/fs/repo-root.ts';
import { eraseLabels, type EraseResult, type EraseSelector } from './lib/label-files/erase-labels.ts';
import { labelRecordSchema } from '../core/labels/records.ts';
import type { RedisClient } from '../service/config/redis-target.ts';
import { runCommand } from '../core/cli/run.ts';
import { clean, parseFlags, UsageError } from '../core/cli/usage.ts';
import { openStore } from './lib/open-store.ts';

const USAGE = `Usage: npm run labels:erase -- [--account <id>] [--submission <submissionId> ...] [--form <formId> ...]
                              [--dir data/labels] [--dry-run] [--files-only]
Erases submitted content, e.g. for a GDPR erasure request: every line of the chosen submissions from the label files
in <dir> (each file rewritten atomically, under the lock labels:export takes), and the submissions from the review
store that REDIS_URL names, so that no later export writes them again. A line goes when it matches any option:
  --account <id>         every line naming that account, and every other line of the same submissions;
                         in the store, every key of the account
  --submission <id>      every line of that submission (repeatable); in the store, that submission
  --form <formId>        every line of the submissions with a label line of that form, of any account (repeatable):
                         for lines exported before labels named their account. The store is not searched by form.
  --dry-run              say what would be erased from the files; change nothing, read no store
  --files-only           erase from the files only, without REDIS_URL: the store keeps its copy until retention ends,
                         and a label of it not yet exported is written again by the next export`;

interface Request {
  readonly account: string | undefined;
  readonly submissionIds: readonly string[];
  readonly formIds: readonly string[];
  readonly dir: string;
  readonly dryRun: boolean;
}

let redis: RedisClient | undefined;

async function run(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    account: { type: 'string' },
    submission: { type: 'string', multiple: true },
    form: { type: 'string', multiple: true },
    dir: { type: 'string', default: path.join(repoRoot, 'data', 'labels') },
    'dry-run': { type: 'boolean', default: false },
    'files-only': { type: 'boolean', default: false },
  });
  const submissionIds = values.submission ?? [];
  const formIds = values.form ?? [];
  if (values.account === undefined && submissionIds.length === 0 && formIds.length === 0)
    throw new UsageError('Say what to erase: --account, --submission or --form.');
  if (values.account !== undefined && values.account.trim() === '') throw new UsageError('--account needs an account id.');
  for (const id of submissionIds)
    if (!labelRecordSchema.shape.submissionId.safeParse(id).success)
      throw new UsageError(`--submission takes a submissionId (a UUID), got ${clean(id)}`);
  for (const id of formIds) if (id.trim() === '') throw new UsageError('--form needs a form id.');

  const req: Request = { account: values.account, submissionIds, formIds, dir: path.resolve(values.dir), dryRun: values['dry-run'] };
  const selector: EraseSelector = { accountId: req.account, submissionIds, formIds };
  const withStore = !req.dryRun && !values['files-only'];
  const opened = withStore
    ? await openStore({ withoutRedis: 'labels:erase erases the store too: set it, or give --files-only to erase the files alone.' })
    : undefined;
  redis = opened?.redis;
  const result = await eraseLabels(req.dir, selector, { dryRun: req.dryRun, ...(opened === undefined ? {} : { store: opened.store }) });
  for (const line of report(req, result, opened?.where)) console.log(line);
}

/** What was erased, in counts and file names: never a line's content. */
function report(req: Request, r: EraseResult, where: string | undefined): string[] {
  const { dir, dryRun } = req;
  const out: string[] = [];
  if (r.store !== undefined) out.push(...storeReport(req, r.store, where ?? 'the review store'));
  else if (dryRun) out.push('Dry run: nothing was changed, and the review store was not read.');
  else out.push('--files-only: the review store was not touched.');
  if (r.labels + r.withdrawals === 0) out.push(`No label lines of ${chosen(req)} in ${dir}.`);
  else {
    const gone = dryRun ? 'would be deleted' : 'deleted';
    const files = r.files
      .filter((f) => f.removed > 0)
      .map((f) => `${f.name} (${f.removed} line(s)${f.deleted ? `; nothing left, file ${gone}` : ''})`);
    out.push(
      `${dryRun ? 'Would erase' : 'Erased'} ${r.labels} label line(s) and ${r.withdrawals} withdrawal line(s) of ${r.submissions} submission(s) from ${dir}: ${files.join(', ')}.`,
    );
  }
  if (r.torn > 0) {
    out.push(
      `${dryRun ? 'Would remove' : 'Removed'} ${r.torn} line(s) a crashed export cut short, whose submission cannot be read ` +
        '(the next export writes such a label again in full if the store still holds it).',
    );
  }
  if (r.unattributed.size > 0) {
    const forms = [...r.unattributed].map(([form, n]) => `${clean(form)} (${n})`).join(', ');
    const total = [...r.unattributed.values()].reduce((a, b) => a + b, 0);
    out.push(
      `${total} label line(s) in ${dir} name no account (exported before labels named their account), of the forms ${forms}. ` +
        `Form ids are unique across the tenants file: if one of these forms is (or was) ${clean(req.account ?? '')}'s, erase its lines with --form <formId>.`,
    );
  }
  if (r.other.length > 0)
    out.push(
      `${r.other.length} line(s) are not label lines and were left as they are; check them by hand: ${r.other.slice(0, 10).join(', ')}${r.other.length > 10 ? ', …' : ''}`,
    );
  return out;
}

function storeReport(req: Request, s: NonNullable<EraseResult['store']>, where: string): string[] {
  const out: string[] = [];
  if (s.account !== undefined) {
    const a = s.account;
    out.push(
      `Erased account ${clean(req.account ?? '')} from ${where}: ${a.items} item(s), ${a.labels} label(s), ${a.keys} key(s) in all.`,
    );
  }
  for (const id of req.submissionIds) {
    const found = s.submissions.filter((e) => e.submissionId === id);
    if (found.length === 0) out.push(`Submission ${id}: not in ${where} (never queued, past retention, or erased before).`);
    for (const e of found) {
      const what =
        [e.item ? 'item' : '', e.label ? 'label' : '', e.lookup ? 'look-up verdict' : ''].filter(Boolean).join(', ') || 'index entries';
      out.push(`Submission ${id}: erased from ${where} (account ${clean(e.accountId)}: ${what}).`);
    }
  }
  return out;
}

function chosen(req: Request): string {
  const parts = [
    ...(req.account === undefined ? [] : [`account ${clean(req.account)}`]),
    ...req.submissionIds.map((id) => `submission ${id}`),
    ...req.formIds.map((id) => `form ${clean(id)}`),
  ];
  return parts.join(', ');
}

// Every failure of the erasure itself (a busy lock, a missing folder) is one line, exit 1.
runCommand({ name: 'labels:erase', usage: USAGE, main: run, exitCodeOf: () => 1, cleanup: () => redis?.disconnect() });
