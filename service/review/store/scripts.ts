import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import type { RedisClient } from '../../config/redis-target.ts';

// Read from the repository, not beside this module: the bundled service (dist/) runs these same files.
const LUA_DIR = path.join(repoRoot, 'service', 'review', 'store', 'lua');

export interface StoreScript {
  readonly lua: string;
  /** SHA-1 of the source: what EVALSHA names it by. */
  readonly sha: string;
}

function read(name: string): string {
  return readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8');
}

function script(source: string): StoreScript {
  return { lua: source, sha: createHash('sha1').update(source).digest('hex') };
}

/** A script's file, after the lib/ files it uses (Redis runs one source per script: no require). */
function lua(name: string, ...libs: string[]): StoreScript {
  return script([...libs.map((lib) => read(path.join('lib', lib))), read(name)].join('\n'));
}

/**
 * A script made of other scripts: each named file's body becomes a local function of (KEYS, ARGV) that the last file
 * calls, so one call runs several scripts' work with each script still kept, and tested, in one file of its own.
 */
function composed(functions: Readonly<Record<string, string>>, driver: string): StoreScript {
  const parts = Object.entries(functions).map(([fn, name]) => `local function ${fn}(KEYS, ARGV)\n${read(name)}\nend\n`);
  return script([...parts, read(driver)].join('\n'));
}

/**
 * Runs a store script by its SHA (EVALSHA), sending the source only when the server does not have it yet (after a
 * restart, or on a cluster node that never ran it). EVAL sent the 1-3 KB source with every call, and the ingest and
 * remember scripts run for every verified submission in Redis mode.
 */
export async function evalScript(
  redis: RedisClient,
  script: StoreScript,
  numKeys: number,
  ...args: Array<string | number>
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, numKeys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(script.lua, numKeys, ...args);
  }
}

/** The store's Lua scripts, read once at start-up; each file's header names its KEYS and ARGV. */
export const SCRIPTS = Object.freeze({
  label: lua('label'),
  undo: lua('undo', 'withdraw-label'),
  undoLabel: lua('undo-label', 'withdraw-label'),
  acknowledgeExported: lua('acknowledge-exported'),
  eraseSubmission: lua('erase-submission'),
  remember: lua('remember'),
  search: lua('search'),
  trimLabelled: lua('trim-labelled'),
  sweepSearch: lua('sweep-search'),
  bulkLabel: lua('bulk-label'),
  bulkUndo: lua('bulk-undo', 'withdraw-label'),
  /** A batch of queued submissions of one account: near-ingest.lua then ingest.lua for each, in one call. */
  ingestBatch: composed({ nearIngest: 'near-ingest', ingest: 'ingest' }, 'ingest-batch'),
});
