/**
 * What an account's own correction costs: the same bodies classified for an account with a correction and for one
 * without (the global model alone), interleaved in this one process, per call and through the whole verify route
 * (app.inject). The correction is fitted here, as training fits one, on the held-out sets as one account's labels. Run: npm run bench -- --accounts (or npx tsx bench/entries/account-correction.ts).
 */
import path from 'node:path';
import { buildApp } from '../../service/app.ts';
import { loadClassifier } from '../../core/classifier/load.ts';
import { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import { AccountCorrections } from '../../core/classifier/account-corrections.ts';
import { FeatureExtractor } from '../../core/features/index.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { parseTenants } from '../../service/tenants/load.ts';
import { DEFAULT_CORRECTION_SETTINGS, fitAccountCorrections } from '../../training/model/fit-account-corrections.ts';
import type { LabelledRecord } from '../../training/data/record.ts';
import { loadLabelledFile } from '../../training/data/loaders.ts';
import { realisticBodies, type BenchBody } from '../lib/bodies.ts';
import { median } from '../lib/load.ts';

const WITH = 'with-correction';
const WITHOUT = 'without-correction';
const keyOf = (account: string) => `bench-key-${account}-0123456789`;

export interface AccountCostFigures {
  readonly labels: number;
  readonly buckets: number;
  readonly classifyUs: { readonly global: number; readonly corrected: number };
  readonly classifyRatio: number;
  readonly verifyPerSec: { readonly global: number; readonly corrected: number };
  readonly verifyRatio: number;
}

export async function measureAccountCost(repoRoot: string, quick: boolean, log: (line: string) => void): Promise<AccountCostFigures> {
  const global = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  const bodies = realisticBodies(repoRoot);
  const extractor = new FeatureExtractor(global.manifest.featureSettings);
  const { a, b } = global.manifest.calibration;
  // The held-out sets as one account's labels (414 submissions the global model never saw and partly gets wrong): a
  // correction larger than most accounts' first months. Labels the global model already fits would give none.
  const labels: LabelledRecord[] = ['b2b', 'leads', 'forms'].flatMap((name) =>
    loadLabelledFile(path.join(repoRoot, 'training/holdout', `${name}.jsonl`)).map((r) => ({ ...r, accountId: WITH })),
  );
  const file = fitAccountCorrections(new Map([[WITH, labels]]), extractor, (x) => a * global.scorer.logit(x) + b, {
    ...DEFAULT_CORRECTION_SETTINGS,
    minLabels: 1,
  });
  const buckets = file.accounts[WITH]?.buckets.length ?? 0;
  const classifier = new LinearClassifier(global.manifest, extractor, global.scorer, new AccountCorrections(file));
  log(`correction fitted on ${labels.length} labels: ${buckets} buckets`);

  // Per call: both accounts on every body, alternating which goes first, many passes.
  const samples = { global: [] as number[], corrected: [] as number[] };
  let sink = 0;
  const time = (fields: BenchBody['fields'], account: string) => {
    const t0 = process.hrtime.bigint();
    sink += classifier.classify(fields, account).spamProbability;
    return Number(process.hrtime.bigint() - t0);
  };
  const passes = quick ? 4 : 30;
  for (let p = 0; p < passes + 2; p++) {
    for (const body of bodies) {
      const order = p % 2 === 0 ? [WITHOUT, WITH] : [WITH, WITHOUT];
      for (const account of order) {
        const dt = time(body.fields, account);
        // The first two passes warm the JIT.
        if (p >= 2) (account === WITH ? samples.corrected : samples.global).push(dt);
      }
    }
  }
  const classifyUs = { global: median(samples.global) / 1000, corrected: median(samples.corrected) / 1000 };

  // The whole route, in-process: the same bodies sent with either account's key, in alternating rounds.
  const tenants = parseTenants(
    JSON.stringify({
      accounts: [WITH, WITHOUT].map((id) => ({
        id,
        apiKeys: [{ id: 'k', sha256: sha256Hex(keyOf(id)) }],
        rateLimit: { max: 1e9, windowSeconds: 60 },
        forms: [{ id: `${id}-form`, allowedReferrers: ['*'] }],
      })),
    }),
    'bench',
  );
  const app = await buildApp({ tenants: { current: tenants }, classifier, maxEventLoopDelayMs: 0 });
  const payloads = (account: string) =>
    bodies.map((x) => JSON.stringify({ apiKey: keyOf(account), formId: `${account}-form`, payload: x.fields }));
  const sets: Record<string, string[]> = { [WITH]: payloads(WITH), [WITHOUT]: payloads(WITHOUT) };
  const rates = { global: [] as number[], corrected: [] as number[] };
  try {
    const round = async (account: string) => {
      const t0 = process.hrtime.bigint();
      for (const payload of sets[account] as string[]) {
        const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: { 'content-type': 'application/json' }, payload });
        if (res.statusCode !== 200) throw new Error(`verify answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
      return bodies.length / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    await round(WITHOUT);
    await round(WITH);
    for (let r = 0; r < (quick ? 4 : 20); r++) {
      for (const account of r % 2 === 0 ? [WITHOUT, WITH] : [WITH, WITHOUT])
        (account === WITH ? rates.corrected : rates.global).push(await round(account));
    }
  } finally {
    await app.close();
  }
  if (sink < 0) throw new Error('unreachable');
  const verifyPerSec = { global: median(rates.global), corrected: median(rates.corrected) };
  return {
    labels: labels.length,
    buckets,
    classifyUs,
    classifyRatio: classifyUs.corrected / classifyUs.global,
    verifyPerSec,
    verifyRatio: verifyPerSec.corrected / verifyPerSec.global,
  };
}

export function renderAccountCost(f: AccountCostFigures): string {
  return [
    `Per-account correction (${f.labels} labels, ${f.buckets} buckets), same bodies, same run:`,
    `  classify median: ${f.classifyUs.global.toFixed(1)} µs without, ${f.classifyUs.corrected.toFixed(1)} µs with (x${f.classifyRatio.toFixed(3)})`,
    `  verify route in-process: ${f.verifyPerSec.global.toFixed(0)} req/s without, ${f.verifyPerSec.corrected.toFixed(0)} req/s with ` +
      `(${(100 * f.verifyRatio).toFixed(1)}% of the throughput; target at least 90%)`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureAccountCost(path.resolve(import.meta.dirname, '..', '..'), process.argv.includes('--quick'), (l) =>
    console.log(l),
  );
  console.log(renderAccountCost(figures));
}
