// npm run labels:export [-- --dir data/labels]: writes labels not yet exported to <dir>/<YYYY-MM-DD>.jsonl.
import path from 'node:path';
import { repoRoot } from '../core/fs/repo-root.ts';
import { exportLabels } from './lib/label-files/export-labels.ts';
import type { RedisClient } from '../service/config/redis-target.ts';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags } from '../core/cli/usage.ts';
import { openStore } from './lib/open-store.ts';

const USAGE = `Usage: npm run labels:export [-- --dir data/labels]
Writes every moderator label not yet exported to <dir>/<YYYY-MM-DD of labelledAt>.jsonl (REDIS_URL names the store),
and a withdrawal line for each exported label a moderator has undone since.`;

let redis: RedisClient | undefined;

async function run(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { dir: { type: 'string', default: path.join(repoRoot, 'data', 'labels') } });
  const opened = await openStore();
  redis = opened.redis;
  const { store, where } = opened;
  const dir = path.resolve(values.dir);
  const result = await exportLabels(store.exports, dir);
  if (result.written === 0 && result.withdrawn === 0) console.log(`No new labels in ${where} (${dir}).`);
  else {
    const what = [
      `${result.written} label(s)`,
      ...(result.withdrawn > 0 ? [`${result.withdrawn} withdrawal(s) of labels undone since their export`] : []),
    ].join(' and ');
    console.log(`Exported ${what} from ${where} to ${result.files.map((f) => path.join(dir, f)).join(', ')}`);
  }
}

// Every failure of the export itself (a busy lock, a full disk) is one line, exit 1.
runCommand({ name: 'labels:export', usage: USAGE, main: run, exitCodeOf: () => 1, cleanup: () => redis?.disconnect() });
