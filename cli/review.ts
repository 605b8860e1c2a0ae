// npm run review -- list|show|label: the review queue from a terminal (talks to Redis via REDIS_URL).
import { userInfo } from 'node:os';
import type { RedisClient } from '../service/config/redis-target.ts';
import { runCommand } from '../core/cli/run.ts';
import { clean, CommandError, parseFlags, UsageError, wholeNumber } from '../core/cli/usage.ts';
import { openStore } from './lib/open-store.ts';
import { labelSchema } from '../core/labels/records.ts';
import type { ReviewJob } from '../service/review/intake/job-schema.ts';

const USAGE = `Usage:
  npm run review -- list  --account <id> [--form <id>] [--status spam|legitimate] [--limit 20] [--offset 0] [--json]
  npm run review -- show  --account <id> <submissionId> [--json]
  npm run review -- label --account <id> <submissionId> spam|legitimate [--moderator <id>]
  npm run review -- undo  --account <id> [--moderator <id>]`;

function parseCommandLine(argv: string[]) {
  return parseFlags(
    argv,
    {
      account: { type: 'string', short: 'a' },
      form: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string', default: '20' },
      offset: { type: 'string', default: '0' },
      moderator: { type: 'string', default: `cli:${safeUser()}` },
      json: { type: 'boolean', default: false },
    },
    true,
  );
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function fail(message: string): never {
  throw new UsageError(message);
}

function oneLine(job: ReviewJob): string {
  const first = Object.values(job.fields).find((v) => typeof v === 'string' && v.trim() !== '');
  const preview = clean(String(first ?? ''))
    .replace(/\s+/g, ' ')
    .slice(0, 60);
  const pct = `${Math.round(job.verdict.confidence * 100)}%`.padStart(4);
  return `${job.submissionId}  ${job.receivedAt}  ${job.verdict.status.padEnd(10)} ${pct}  ${clean(job.formId).padEnd(14)} ${preview}`;
}

let redis: RedisClient | undefined;

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, ...args] = positionals;
  if (command === undefined) fail('a command is needed');
  // Known before Redis is asked: a typo is a usage error, not a connection attempt.
  if (!['list', 'show', 'label', 'undo'].includes(command)) fail(`unknown command "${command}"`);
  const account = values.account ?? fail('--account is required: moderators see one account at a time.');
  const offset = wholeNumber(values.offset, '--offset', 0);
  const limit = wholeNumber(values.limit, '--limit', 0);
  const opened = await openStore();
  redis = opened.redis;
  const { store, where } = opened;
  switch (command) {
    case 'list': {
      const status =
        values.status === undefined ? undefined : (labelSchema.safeParse(values.status).data ?? fail('--status is spam or legitimate'));
      const filter = { formId: values.form, status };
      const items = await store.items.listPending(account, filter, offset, limit);
      const counts = await store.items.counts(account, filter);
      if (values.json) console.log(JSON.stringify({ items, counts }, null, 2));
      else {
        console.log(`${counts.pending} pending, ${counts.labelled} labelled (account ${account}; ${where}), oldest first:`);
        for (const item of items) console.log(oneLine(item));
      }
      break;
    }
    case 'show': {
      const id = args[0] ?? fail('show needs a submissionId');
      const entry = await store.items.get(account, id);
      if (entry === undefined) throw new CommandError(`no submission ${id} in review for account ${account}`);
      if (values.json) console.log(JSON.stringify(entry, null, 2));
      else {
        const { item, label } = entry;
        console.log(
          `submission ${item.submissionId}\nform       ${clean(item.formId)}\nreceived   ${item.receivedAt}\norigin     ${clean(item.origin ?? '(none)')}`,
        );
        console.log(
          `verdict    ${item.verdict.status} (${Math.round(item.verdict.confidence * 100)}%), model ${clean(item.verdict.modelVersion)}`,
        );
        console.log(`reasoning  ${clean(item.verdict.reasoning)}`);
        if (!entry.queued) {
          console.log('label      not queued for review (a confident verdict, not sampled): only the verdict is kept');
          break;
        }
        console.log(`label      ${label === undefined ? 'pending' : `${label.label} by ${label.moderatorId} at ${label.labelledAt}`}`);
        console.log(`fields${item.truncated ? ' (some cut to the size limit)' : ''}:`);
        const cut = new Set(item.cutFields ?? []);
        for (const [name, value] of Object.entries(item.fields)) {
          console.log(
            `  ${clean(name)}${cut.has(name) ? ' (cut)' : ''}: ${clean(typeof value === 'string' ? value : JSON.stringify(value))}`,
          );
        }
      }
      break;
    }
    case 'label': {
      const id = args[0] ?? fail('label needs a submissionId');
      const label = labelSchema.safeParse(args[1]).data ?? fail('label needs spam or legitimate');
      const record = await store.labels.label(account, id, label, values.moderator);
      if (record === undefined) throw new CommandError(`no submission ${id} in review for account ${account}`);
      console.log(`Labelled ${id} ${label} (model said ${record.modelStatus}) as ${values.moderator}.`);
      break;
    }
    case 'undo': {
      const r = await store.labels.undo(account, values.moderator);
      if (r.kind === 'nothing') console.log('Nothing to undo.');
      else if (r.kind === 'relabelled')
        console.log(`Not undone: ${clean(r.by)} relabelled ${r.submissionId} since. Run undo again for your label before it.`);
      else if (r.kind === 'undone-bulk')
        console.log(
          `Undid your bulk label of ${r.undone} item(s)${r.relabelled > 0 ? `; ${r.relabelled} relabelled since were left as they are` : ''}.`,
        );
      else {
        // Undoing a relabel brings the earlier label back; undoing a first label makes the item pending again.
        const now = (await store.items.get(account, r.submissionId))?.label;
        console.log(
          `Undid your label of ${r.submissionId}; ${now === undefined ? 'it is pending again' : `it is back to ${now.label} by ${clean(now.moderatorId)}`}.`,
        );
      }
      break;
    }
    default:
      fail(`unknown command "${command}"`);
  }
}

runCommand({ name: 'review', usage: USAGE, main: run, cleanup: () => redis?.disconnect() });
