import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../config/env.ts';

// Read from the repository, not beside this module: the bundled service (dist/) runs these same files.
const LUA_DIR = path.join(repoRoot, 'service', 'review', 'store', 'lua');

function lua(name: string): string {
  return readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8');
}

/** The store's Lua scripts, read once at start-up; each file's header names its KEYS and ARGV. */
export const SCRIPTS = Object.freeze({
  ingest: lua('ingest'),
  evict: lua('evict'),
  label: lua('label'),
  undo: lua('undo'),
  acknowledgeExported: lua('acknowledge-exported'),
  eraseSubmission: lua('erase-submission'),
  remember: lua('remember'),
  bulkLabel: lua('bulk-label'),
  bulkUndo: lua('bulk-undo'),
});
