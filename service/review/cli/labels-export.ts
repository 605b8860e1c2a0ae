// npm run labels:export [-- --dir data/labels]: writes labels not yet exported to <dir>/<YYYY-MM-DD>.jsonl.
import path from 'node:path';
import { repoRoot } from '../../config/env.ts';
import { exportLabels } from '../label-files/export-labels.ts';
import { openStore, parseCliArgs } from './shared.ts';

const USAGE = `Usage: npm run labels:export [-- --dir data/labels]
Writes every moderator label not yet exported to <dir>/<YYYY-MM-DD of labelledAt>.jsonl (REDIS_URL names the store),
and a withdrawal line for each exported label a moderator has undone since.`;

const { values } = parseCliArgs(
  { options: { dir: { type: 'string', default: path.join(repoRoot, 'data', 'labels') }, help: { type: 'boolean', short: 'h', default: false } } },
  USAGE,
);
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const { store, redis, where } = await openStore();
try {
  const dir = path.resolve(values.dir);
  const result = await exportLabels(store.exports, dir);
  if (result.written === 0 && result.withdrawn === 0) console.log(`No new labels in ${where} (${dir}).`);
  else {
    const what = [`${result.written} label(s)`, ...(result.withdrawn > 0 ? [`${result.withdrawn} withdrawal(s) of labels undone since their export`] : [])].join(' and ');
    console.log(`Exported ${what} from ${where} to ${result.files.map((f) => path.join(dir, f)).join(', ')}`);
  }
} catch (err) {
  console.error(`labels:export failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
