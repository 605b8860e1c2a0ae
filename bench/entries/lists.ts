/**
 * What an account's block list costs verify: the same bodies sent for an account holding 10,000 block-list entries
 * (senders, e-mail domains, link domains; none of them in the bodies, so every look-up is made and misses) and holding
 * none, interleaved request by request in this one process through the whole verify route (app.inject), with a control
 * (none again) for the noise, plus the list check alone per call. Run: npm run bench -- --lists (or npx tsx bench/entries/lists.ts [--quick]).
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { loadClassifier } from '../../core/classifier/load.ts';
import { buildApp } from '../../service/app.ts';
import { ListsCache } from '../../service/review/lists/cache.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { parseTenants } from '../../service/tenants/load.ts';
import { checkLists, type ListLookup } from '../../service/verify/lists.ts';
import { realisticBodies } from '../lib/bodies.ts';
import { median } from '../lib/load.ts';

const WITH = 'lists-on';
const WITHOUT = 'lists-no';
type Mode = 'with' | 'without' | 'control';
export const LIST_ENTRIES = 10_000;
const keyOf = (account: string) => `bench-key-${account}-0123456789`;

export interface ListsCostFigures {
  readonly entries: number;
  readonly bodies: number;
  readonly checkNs: { readonly without: number; readonly with: number };
  readonly verifyPerSec: { readonly without: number; readonly with: number; readonly control: number };
  readonly verifyRatio: number;
  /** No lists against no lists, the same way: the ratio two identical setups show in this run, the noise floor. */
  readonly controlRatio: number;
  /** Requests timed per account (the bodies, `passes` times). */
  readonly requests: number;
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

  // The route: one account, whose lists the app reads through a switch set before each request: the 10,000 entries,
  // none, or none again (the control: how far two identical setups differ in this run, the noise the ratio carries).
  // Interleaved request by request with the same body, each mode taking each place in the turn equally often: on a
  // shared machine the load drifts within seconds, and requests a millisecond apart see the same load.
  const tenants = parseTenants(
    JSON.stringify({
      accounts: [
        {
          id: WITH,
          apiKeys: [{ id: 'k', sha256: sha256Hex(keyOf(WITH)) }],
          rateLimit: { max: 1e9, windowSeconds: 60 },
          forms: [{ id: `${WITH}-form`, allowedReferrers: ['*'] }],
        },
      ],
    }),
    'bench',
  );
  const none = new ListsCache();
  const modes: Record<Mode, ListsCache> = { with: lists, without: none, control: none };
  let current: ListsCache = none;
  const lookup: ListLookup = { match: (accountId, contacts) => current.match(accountId, contacts) };
  const app = await buildApp({ tenants: { current: tenants }, classifier, maxEventLoopDelayMs: 0, accountLists: lookup });
  const payloads = bodies.map((x) => JSON.stringify({ apiKey: keyOf(WITH), formId: `${WITH}-form`, payload: x.fields }));
  const spent: Record<Mode, number> = { with: 0, without: 0, control: 0 };
  const order: Mode[] = ['without', 'with', 'control'];
  const passes = quick ? 4 : 30;
  let requests = 0;
  try {
    for (let p = 0; p < passes + 1; p++) {
      for (let i = 0; i < bodies.length; i++) {
        const k = (p * bodies.length + i) % order.length;
        for (const mode of [...order.slice(k), ...order.slice(0, k)]) {
          current = modes[mode];
          const t0 = process.hrtime.bigint();
          const res = await app.inject({
            method: 'POST',
            url: '/v1/verify',
            headers: { 'content-type': 'application/json' },
            payload: payloads[i] as string,
          });
          const dt = Number(process.hrtime.bigint() - t0);
          if (res.statusCode !== 200) throw new Error(`verify answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
          // The first pass warms the JIT.
          if (p > 0) spent[mode] += dt;
        }
      }
      if (p > 0) requests += bodies.length;
    }
  } finally {
    await app.close();
  }
  const rate = (mode: Mode) => requests / (spent[mode] / 1e9);
  const verifyPerSec = { without: rate('without'), with: rate('with'), control: rate('control') };
  return {
    entries: LIST_ENTRIES,
    bodies: bodies.length,
    checkNs: { without: median(checkSamples.without), with: median(checkSamples.with) },
    verifyPerSec,
    verifyRatio: verifyPerSec.with / verifyPerSec.without,
    controlRatio: verifyPerSec.control / verifyPerSec.without,
    requests,
    loadAverage: { start, end: loadavg() },
  };
}

export function renderListsCost(f: ListsCostFigures): string {
  const la = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return [
    `Allow and block lists: an account with ${f.entries.toLocaleString('en')} block-list entries against one with none, same ${f.bodies} bodies, same run:`,
    `  list check alone, per submission: ${f.checkNs.without.toFixed(0)} ns without, ${f.checkNs.with.toFixed(0)} ns with`,
    `  verify route in-process, ${f.requests.toLocaleString('en')} requests each, interleaved one by one: ${f.verifyPerSec.without.toFixed(0)} req/s without, ` +
      `${f.verifyPerSec.with.toFixed(0)} req/s with: ${(100 * f.verifyRatio).toFixed(1)}% of the throughput (target at least 97%)`,
    `  control, no lists again: ${f.verifyPerSec.control.toFixed(0)} req/s, ${(100 * f.controlRatio).toFixed(1)}% of the first (what noise alone gives)`,
    `  the check's share of a request's time at that rate: ${((100 * (f.checkNs.with - f.checkNs.without) * f.verifyPerSec.with) / 1e9).toFixed(3)}%`,
    `  load average at start ${la(f.loadAverage.start)}, at end ${la(f.loadAverage.end)} (2 cores)`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureListsCost(path.resolve(import.meta.dirname, '..', '..'), process.argv.includes('--quick'), (l) =>
    console.log(l),
  );
  console.log(renderListsCost(figures));
}
