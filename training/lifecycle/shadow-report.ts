import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import {
  DEFAULT_SHADOW_PREFIX,
  readAccounts,
  readFormCounts,
  readPairs,
  readRuns,
  ShadowKeys,
} from '../../core/classifier/shadow-store.ts';
import { latestLabels, readLabelledFile } from '../data/loaders.ts';
import type { LabelledRecord } from '../data/record.ts';
import { labelledLines } from './shadow-estimate.ts';

export interface ShadowReportOptions {
  readonly redisUrl: string;
  readonly prefix?: string | undefined;
  readonly account?: string | undefined;
  /** Where labels:export writes the moderators' labels. */
  readonly labelsDir: string;
}

/** The moderators' newest label per submission, by submission id. */
function labelsIn(dir: string): Map<string, LabelledRecord> {
  if (!existsSync(dir)) return new Map();
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => readLabelledFile(path.join(dir, n), 'labels'));
  const latest = latestLabels(
    files.flatMap((f) => f.records),
    files.flatMap((f) => f.withdrawals),
  );
  return new Map(latest.map((r) => [r.id.replace(/^label:/, ''), r]));
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Agreement counts per account and form for every (active, shadow) pairing seen, beside both models on labels. */
export async function shadowReport(o: ShadowReportOptions): Promise<string[]> {
  const redis = new Redis(o.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
  try {
    await redis.connect();
    const keys = new ShadowKeys(o.prefix ?? DEFAULT_SHADOW_PREFIX);
    const runs = await readRuns(redis, keys);
    if (runs.length === 0) return ['no shadow has scored anything yet (npm run models -- shadow <version>, then traffic)'];
    const labels = labelsIn(o.labelsDir);
    const pairs = await readPairs(redis, keys, [...labels.keys()]);
    const lines: string[] = [];
    for (const run of runs) {
      const accounts = (await readAccounts(redis, keys, run.active, run.shadow)).filter((a) => o.account === undefined || a === o.account);
      if (accounts.length === 0) continue;
      lines.push(`shadow ${run.shadow} beside active ${run.active}`);
      for (const account of accounts) {
        lines.push(`  account ${account}`);
        lines.push('    form                  scored   agreed   disagreed (active>shadow)                mean p(spam) active / shadow');
        for (const f of await readFormCounts(redis, keys, run.active, run.shadow, account)) {
          const dis = Object.entries(f.pairs)
            .filter(([k]) => k.split('>')[0] !== k.split('>')[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(', ');
          lines.push(
            `    ${f.formId.padEnd(20)} ${String(f.scored).padStart(7)}   ${pct(f.scored ? f.agreed / f.scored : 0).padStart(6)}   ${(dis || 'none').padEnd(40)} ${f.meanActive.toFixed(3)} / ${f.meanShadow.toFixed(3)}`,
          );
        }
        const labelled = [...pairs.values()]
          .filter((p) => p.accountId === account && p.active.version === run.active && p.shadow.version === run.shadow)
          .map((pair) => ({ pair, label: (labels.get(pair.submissionId) as LabelledRecord).label }));
        lines.push(...labelledLines(labelled));
      }
    }
    if (lines.length === 0) return [`nothing shadowed for account ${o.account}`];
    return lines;
  } finally {
    redis.disconnect();
  }
}
