/**
 * What an account's block list costs verify: the same bodies sent for an account holding 10,000 block-list entries
 * (senders, e-mail domains, link domains; none of them in the bodies, so every look-up is made and misses) and for one
 * holding none, interleaved in this one process, through the whole verify route (app.inject), plus the list check
 * alone per call. Run: npm run bench -- --lists (or npx tsx bench/lists.ts [--quick]).
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { loadClassifier } from '../core/classifier/load.ts';
import { buildApp } from '../service/app.ts';
import { ListsCache } from '../service/review/lists/cache.ts';
import { sha256Hex } from '../service/tenants/key.ts';
import { parseTenants } from '../service/tenants/load.ts';
import { checkLists } from '../service/verify/lists.ts';
import { realisticBodies } from './lib/bodies.ts';
import { median } from './lib/load.ts';

const WITH = 'with-lists';
const WITHOUT = 'without-lists';
export const LIST_ENTRIES = 10_000;
/** Requests per round: a pair of rounds (one per account) takes a fraction of a second. */
const ROUND_REQUESTS = 100;
const keyOf = (account: string) => `bench-key-${account}-0123456789`;

export interface ListsCostFigures {
  readonly entries: number;
  readonly bodies: number;
  readonly checkNs: { readonly without: number; readonly with: number };
  readonly verifyPerSec: { readonly without: number; readonly with: number };
  /** The median of the pairs' ratios (with / without), each pair's two rounds run back to back on the same bodies. */
  readonly verifyRatio: number;
  readonly rounds: number;
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
}

/** 10,000 entries of the three kinds, in proportions a busy account might have; none matches the bench's bodies. */
export function benchEntries(n = LIST_ENTRIES): string[] {
  return Array.from({ length: n }, (_, i) =>
    i % 10 < 4
      ? `block sender sender-${i}@listed-${i % 97}.example`
      : i % 10 < 7
        ? `block email-domain mail-${i}.listed.example`
        : `block link-domain shop-${i}.listed.example`,
  );
}

export async function measureListsCost(repoRoot: string, quick: boolean, log: (line: string) => void): Promise<ListsCostFigures> {
  const start = loadavg();
  const classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  const bodies = realisticBodies(repoRoot);
  const lists = new ListsCache();
  lists.replace(WITH, benchEntries());
  if (lists.size(WITH) !== LIST_ENTRIES) throw new Error(`expected ${LIST_ENTRIES} entries, have ${lists.size(WITH)}`);

  // The check alone, per call: the model's verdict (with its contacts) for each body, then the look-up for either account.
  const verdicts = bodies.map((b) => classifier.classify(b.fields));
  const hits = verdicts.filter((v) => checkLists(lists, WITH, v) !== undefined).length;
  if (hits !== 0) throw new Error(`${hits} bench bodies match the bench's entries: the look-ups would stop early`);
  const withContacts = verdicts.filter((v) => v.contacts !== undefined && (v.contacts.sender !== null || v.contacts.linkHosts.length > 0));
  log(`${bodies.length} bodies, ${withContacts.length} with a sender or a link; ${LIST_ENTRIES} block-list entries`);
  const checkSamples = { without: [] as number[], with: [] as number[] };
  for (let p = 0; p < (quick ? 20 : 200); p++) {
    for (const account of p % 2 === 0 ? [WITHOUT, WITH] : [WITH, WITHOUT]) {
      const t0 = process.hrtime.bigint();
      for (const v of verdicts) checkLists(lists, account, v);
      const perCall = Number(process.hrtime.bigint() - t0) / verdicts.length;
      if (p >= 2) (account === WITH ? checkSamples.with : checkSamples.without).push(perCall);
    }
  }

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
  const app = await buildApp({ tenants: { current: tenants }, classifier, maxEventLoopDelayMs: 0, accountLists: lists });
  const payloads = (account: string) =>
    bodies.map((x) => JSON.stringify({ apiKey: keyOf(account), formId: `${account}-form`, payload: x.fields }));
  const sets: Record<string, string[]> = { [WITH]: payloads(WITH), [WITHOUT]: payloads(WITHOUT) };
  const rates = { without: [] as number[], with: [] as number[] };
  const ratios: number[] = [];
  // Short rounds in pairs, the order alternating: on a shared machine the load drifts within seconds, and a pair's two
  // rounds a fraction of a second apart see the same load. The figure is the median of the pairs' ratios.
  const rounds = quick ? 20 : 200;
  let next = 0;
  try {
    const round = async (account: string) => {
      const list = sets[account] as string[];
      const from = next;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ROUND_REQUESTS; i++) {
        const payload = list[(from + i) % list.length] as string;
        const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: { 'content-type': 'application/json' }, payload });
        if (res.statusCode !== 200) throw new Error(`verify answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
      return ROUND_REQUESTS / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    for (let warm = 0; warm < 4; warm++) await round(warm % 2 === 0 ? WITHOUT : WITH);
    for (let r = 0; r < rounds; r++) {
      const pair: Record<string, number> = {};
      // The same bodies for both rounds of a pair; the next pair moves on through the bodies.
      for (const account of r % 2 === 0 ? [WITHOUT, WITH] : [WITH, WITHOUT]) pair[account] = await round(account);
      next = (next + ROUND_REQUESTS) % bodies.length;
      rates.without.push(pair[WITHOUT] as number);
      rates.with.push(pair[WITH] as number);
      ratios.push((pair[WITH] as number) / (pair[WITHOUT] as number));
    }
  } finally {
    await app.close();
  }
  const verifyPerSec = { without: median(rates.without), with: median(rates.with) };
  return {
    entries: LIST_ENTRIES,
    bodies: bodies.length,
    checkNs: { without: median(checkSamples.without), with: median(checkSamples.with) },
    verifyPerSec,
    verifyRatio: median(ratios),
    rounds,
    loadAverage: { start, end: loadavg() },
  };
}

export function renderListsCost(f: ListsCostFigures): string {
  const la = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    `Allow and block lists: an account with ${f.entries.toLocaleString('en')} block-list entries against one with none, same ${f.bodies} bodies, same run:`,
    `  list check alone, per submission: ${f.checkNs.without.toFixed(0)} ns without, ${f.checkNs.with.toFixed(0)} ns with`,
    `  verify route in-process, ${f.rounds} pairs of ${ROUND_REQUESTS}-request rounds: median ${f.verifyPerSec.without.toFixed(0)} req/s without, ` +
      `${f.verifyPerSec.with.toFixed(0)} req/s with; median ratio of the pairs ${(100 * f.verifyRatio).toFixed(1)}% (target at least 97%)`,
    `  the check's share of a request's time at that rate: ${((100 * (f.checkNs.with - f.checkNs.without) * f.verifyPerSec.with) / 1e9).toFixed(3)}%`,
    `  load average at start ${la(f.loadAverage.start)}, at end ${la(f.loadAverage.end)} (2 cores)`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureListsCost(path.resolve(import.meta.dirname, '..'), process.argv.includes('--quick'), (l) => console.log(l));
  console.log(renderListsCost(figures));
}
