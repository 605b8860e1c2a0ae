import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError } from '../core/cli/usage.ts';
import {
  addAccount,
  addForm,
  addModerator,
  EditError,
  issueKey,
  removeForm,
  removeModerator,
  revokeKey,
  setReferrers,
} from '../service/tenants/edit.ts';
import { parseTenants } from '../service/tenants/load.ts';
import type { TenantsFile } from '../service/tenants/schema.ts';
import { writeTenants } from '../service/tenants/write.ts';

const USAGE = `Usage: npm run tenants -- <command> [options]   (file: --file <path> or TENANTS_FILE)

  list                                        accounts, their key ids, forms and referrers
  add-account <accountId> [--max N --window SECONDS --algorithm fixed|sliding]
  add-form <accountId> <formId> [--referrer <entry> ...]   (none yet: the form blocks every request)
  set-referrers <accountId> <formId> [--referrer <entry> ...]   replaces the list (none: blocks every request)
  remove-form <accountId> <formId>
  issue-key <accountId> [--id <keyId>]        prints the new key once; only its SHA-256 is stored
  revoke-key <accountId> <keyId>
  add-moderator <accountId> <moderatorId> [--replace]
                                              prints a review-console token once; only its SHA-256 is stored.
                                              --replace gives an existing moderator a new token and ends
                                              the sessions opened with the old one
  remove-moderator <accountId> <moderatorId>  ends that moderator's sessions too

Referrer entries: "example.com" (any port), "localhost:8080" (that port), "*.example.org" (subdomains), "*" (anything).
A running service picks up the change by itself.`;

async function readTenants(file: string, create: boolean): Promise<TenantsFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (create) return { accounts: [] };
    throw new EditError(`no tenants file at ${file} (add-account creates it)`);
  }
  return parseTenants(text, file).file;
}

function list(data: TenantsFile): string {
  const lines: string[] = [];
  for (const a of data.accounts) {
    const rl =
      a.rateLimit === undefined
        ? 'default rate limit'
        : `${a.rateLimit.max}/${a.rateLimit.windowSeconds}s ${a.rateLimit.algorithm ?? 'sliding'}`;
    lines.push(`${a.id}  (${rl})`);
    lines.push(`  keys: ${a.apiKeys.map((k) => k.id).join(', ') || '(none)'}`);
    if (a.moderators !== undefined) lines.push(`  moderators: ${a.moderators.map((m) => m.id).join(', ') || '(none)'}`);
    for (const f of a.forms) lines.push(`  form ${f.id}: ${f.allowedReferrers.join(', ') || '(no referrer allowed)'}`);
  }
  return lines.length > 0 ? lines.join('\n') : '(no accounts)';
}

const COMMANDS = [
  'list',
  'add-account',
  'add-form',
  'set-referrers',
  'remove-form',
  'issue-key',
  'revoke-key',
  'add-moderator',
  'remove-moderator',
] as const;
type Command = (typeof COMMANDS)[number];

// Known before the file is read: `tenants bogus` is a usage error, not a question about --file.
function isCommand(command: string): command is Command {
  return (COMMANDS as readonly string[]).includes(command);
}

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number of 1 or more, got "${value}"`);
  return n;
}

// Checked as a flag: left to the file's schema, the error would name the file and a JSON path the user never typed.
function algorithm(value: string | undefined): { algorithm?: 'fixed' | 'sliding' } {
  if (value === undefined) return {};
  if (value !== 'fixed' && value !== 'sliding') throw new UsageError(`--algorithm must be fixed or sliding, got "${value}"`);
  return { algorithm: value };
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

function parseCommandLine(argv: string[]) {
  return parseFlags(
    argv,
    {
      file: { type: 'string' },
      max: { type: 'string' },
      window: { type: 'string' },
      algorithm: { type: 'string' },
      referrer: { type: 'string', multiple: true },
      id: { type: 'string' },
      replace: { type: 'boolean' },
    },
    true,
  );
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, ...args] = positionals;
  if (command === undefined) throw new UsageError('a command is needed');
  if (!isCommand(command)) throw new UsageError(`unknown command "${command}"`);
  // Silently ignored elsewhere, a --replace could pass for a rotation that never happened.
  if (values.replace === true && command !== 'add-moderator') throw new UsageError('--replace goes with add-moderator only');
  const file = path.resolve(need(values.file ?? process.env.TENANTS_FILE, 'the tenants file: --file <path> or TENANTS_FILE'));
  const data = await readTenants(file, command === 'add-account');

  switch (command) {
    case 'list':
      console.log(list(data));
      return;
    case 'add-account': {
      const accountId = need(args[0], '<accountId>');
      const rateLimit =
        values.max === undefined && values.window === undefined && values.algorithm === undefined
          ? undefined
          : {
              max: wholeNumber(values.max, '--max', 600),
              windowSeconds: wholeNumber(values.window, '--window', 60),
              ...algorithm(values.algorithm),
            };
      await writeTenants(file, addAccount(data, accountId, rateLimit));
      console.log(`added account ${accountId}`);
      return;
    }
    case 'add-form': {
      const referrers = values.referrer ?? [];
      await writeTenants(file, addForm(data, need(args[0], '<accountId>'), need(args[1], '<formId>'), referrers));
      console.log(
        `added form ${args[1]}${referrers.length === 0 ? ' (no referrer allowed yet: every request will be blocked; set-referrers adds some)' : ''}`,
      );
      return;
    }
    case 'set-referrers': {
      const referrers = values.referrer ?? [];
      await writeTenants(file, setReferrers(data, need(args[0], '<accountId>'), need(args[1], '<formId>'), referrers));
      console.log(
        referrers.length === 0
          ? `form ${args[1]} allows no referrer now: every request to it will be blocked`
          : `form ${args[1]} allows: ${referrers.join(', ')}`,
      );
      return;
    }
    case 'remove-form':
      await writeTenants(file, removeForm(data, need(args[0], '<accountId>'), need(args[1], '<formId>')));
      console.log(`removed form ${args[1]} of ${args[0]}`);
      return;
    case 'issue-key': {
      const issued = issueKey(data, need(args[0], '<accountId>'), values.id);
      await writeTenants(file, issued.file);
      console.log(
        `key id: ${issued.keyId}\nkey:    ${issued.key}\n\nStore it now: it is shown only this once (the file keeps its SHA-256 only).`,
      );
      return;
    }
    case 'revoke-key':
      await writeTenants(file, revokeKey(data, need(args[0], '<accountId>'), need(args[1], '<keyId>')));
      console.log(`revoked key ${args[1]} of ${args[0]}`);
      return;
    case 'add-moderator': {
      const replace = values.replace === true;
      const added = addModerator(data, need(args[0], '<accountId>'), need(args[1], '<moderatorId>'), { replace });
      await writeTenants(file, added.file);
      const ended = replace ? `\nSessions opened with ${args[1]}'s old token end at their next request.` : '';
      console.log(`moderator token: ${added.token}\n\nStore it now: it is shown only this once (the file keeps its SHA-256 only).${ended}`);
      return;
    }
    case 'remove-moderator':
      await writeTenants(file, removeModerator(data, need(args[0], '<accountId>'), need(args[1], '<moderatorId>')));
      console.log(`removed moderator ${args[1]} of ${args[0]}; their console sessions end at their next request`);
      return;
    default: {
      // The compiler checks that the switch handles every entry of COMMANDS, and nothing else.
      const unhandled: never = command;
      throw new UsageError(`unknown command "${String(unhandled)}"`);
    }
  }
}

// Every other error (a refused edit, an unreadable file) is one line, exit 1.
runCommand({ name: 'tenants', usage: USAGE, main: run, exitCodeOf: () => 1 });
