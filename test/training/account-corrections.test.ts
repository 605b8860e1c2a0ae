import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTraining, type TrainingOptions } from '../../training/pipeline.ts';
import { loadModelFolder } from '../../core/classifier/load.ts';
import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import type { Verdict } from '../../core/classifier/types.ts';
import { ACCOUNT_SIGNAL_ID } from '../../core/classifier/reasoning.ts';
import { DEFAULT_CORRECTION_SETTINGS } from '../../training/model/fit-account-corrections.ts';
import { ALL_WELCOME, dataDir, LABELLED, PROMO_IS_SPAM, SITE, type Policy } from './account-fixture.ts';

const options = {
  outDir: '',
  seed: 3,
  epochs: 4,
  batchSize: 16,
  learningRate: 0.05,
  l2: 1e-7,
  targetFpr: 0.05,
  sourceWeights: {},
  // A weaker pull than the default, so 60 labels move a correction all the way on this tiny fixture, and one fixed pull
  // (no grid chosen by cross-validation, which account-new-site.slow.test.ts covers): these tests are about whose verdicts a
  // correction moves, not how far or whether (docs/model.md measures that on real sites).
  corrections: { ...DEFAULT_CORRECTION_SETTINGS, l2: 0.01, l2Grid: [] },
  log: () => {},
} satisfies Omit<TrainingOptions, 'dataDir'>;

const dirs: string[] = [];
async function train(accounts: Readonly<Record<string, Policy>>, second: number): Promise<{ dir: string; classifier: LinearClassifier }> {
  const data = dataDir(accounts);
  dirs.push(data);
  const { dir } = await runTraining({
    ...options,
    dataDir: data,
    outDir: path.join(data, 'models'),
    now: new Date(Date.UTC(2026, 0, 2, 3, 4, second)),
  });
  return { dir, classifier: await loadModelFolder(dir) };
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// The comments that arrive after the labelled ones, and probes the site never had.
const REST = SITE.slice(LABELLED);
const PROBES = [
  ...REST.map((i) => ({ comment: i.comment })),
  { name: 'Tom', email: 'tom@gmail.com', message: 'Do you deliver to Leeds on Saturdays?' },
  { name: 'SEO Pro', email: 'offers@rank-fast.example', message: 'Buy cheap backlinks now, rank #1 on Google: http://rank-fast.example' },
  { comment: 'subscribe to my channel' },
  { message: '' },
];

/** A verdict without its model version: two models' answers compare on what the caller reads. */
const answer = (v: Verdict) => ({ status: v.status, spamProbability: v.spamProbability, reasoning: v.reasoning, signals: v.signals });

/** What one account sees on the rest of the site: promos flagged, genuine comments flagged. */
function figures(c: LinearClassifier, accountId: string | undefined) {
  const flagged = (kind: 'promo' | 'genuine') =>
    REST.filter((i) => i.kind === kind && c.classify({ comment: i.comment }, accountId).status === 'spam').length;
  return { promo: flagged('promo'), genuine: flagged('genuine') };
}

describe('per-account corrections, trained end to end', () => {
  // None: no account labels. onlyB: account "welcome" labels the site's first comments all legitimate. both: and
  // account "strict" labels the same comments as they are (self-promotion is spam).
  let none: { dir: string; classifier: LinearClassifier };
  let onlyB: { dir: string; classifier: LinearClassifier };
  let both: { dir: string; classifier: LinearClassifier };
  beforeAll(async () => {
    none = await train({}, 1);
    onlyB = await train({ welcome: ALL_WELCOME }, 2);
    both = await train({ strict: PROMO_IS_SPAM, welcome: ALL_WELCOME }, 3);
  }, 600_000);

  it('exports each labelled account a correction beside the model, listed in the manifest', () => {
    expect(existsSync(path.join(none.dir, 'accounts.json'))).toBe(false);
    expect(none.classifier.manifest.accountCorrections).toBeUndefined();
    const file = JSON.parse(readFileSync(path.join(both.dir, 'accounts.json'), 'utf8')) as { accounts: Record<string, { labels: number }> };
    expect(Object.keys(file.accounts).sort()).toEqual(['strict', 'welcome']);
    expect(file.accounts.strict?.labels).toBe(LABELLED);
    expect(both.classifier.manifest.accountCorrections).toMatchObject({ file: 'accounts.json', accounts: 2 });
    // The two accounts labelled the self-promotion both ways, so they vouch for none of each other's labels: none of
    // them reached the global model, not even the genuine comments they agree on.
    const promos = SITE.slice(0, LABELLED).filter((i) => i.kind === 'promo').length;
    expect(both.classifier.manifest.data.labels.accounts).toMatchObject({
      accounts: 2,
      labels: 2 * LABELLED,
      agreed: 0,
      heldBack: 2 * LABELLED,
      disputed: 2 * promos,
    });
    expect(readFileSync(path.join(both.dir, 'report.md'), 'utf8')).toContain('Per-account corrections (`accounts.json`): 2 accounts');
  });

  it("one account's correction never changes another account's verdicts", () => {
    // The global model's weights are byte for byte the same with and without any account's labels.
    const weights = readFileSync(path.join(none.dir, 'weights.bin'));
    expect(readFileSync(path.join(onlyB.dir, 'weights.bin')).equals(weights)).toBe(true);
    expect(readFileSync(path.join(both.dir, 'weights.bin')).equals(weights)).toBe(true);
    let strictDiffers = 0;
    for (const probe of PROBES) {
      const global = answer(none.classifier.classify(probe));
      // An account with no labels, and a call without an account: the global model, whatever others labelled.
      expect(answer(both.classifier.classify(probe, 'no-labels'))).toEqual(global);
      expect(answer(both.classifier.classify(probe))).toEqual(global);
      // "welcome" sees the same whether or not "strict" labelled anything.
      expect(answer(both.classifier.classify(probe, 'welcome'))).toEqual(answer(onlyB.classifier.classify(probe, 'welcome')));
      if (both.classifier.classify(probe, 'strict').spamProbability !== global.spamProbability) strictDiffers++;
    }
    // The correction does act for its own account.
    expect(strictDiffers).toBe(PROBES.length);
  });

  it("a second account labelling the first account's spam legitimate: the first and an unlabelled account keep their figures, the second gets its own policy", () => {
    const global = figures(none.classifier, undefined);
    const unlabelled = figures(both.classifier, 'no-labels');
    const strict = figures(both.classifier, 'strict');
    const welcome = figures(both.classifier, 'welcome');
    const promos = REST.filter((i) => i.kind === 'promo').length;
    const genuine = REST.length - promos;
    expect(promos).toBeGreaterThan(5);
    // An account with no labels: exactly the global model's figures.
    expect(unlabelled).toEqual(global);
    // The first account: its own spam caught (most of it, where the global model alone catches little), and no more
    // genuine comments flagged than the global model flags.
    expect(strict.promo).toBeGreaterThan(global.promo);
    // Most: 75% on the old seeded-shuffle split; the text-hash split trains the global model on other records, and the
    // correction then catches 10 of 16 (the global model alone fewer).
    expect(strict.promo).toBeGreaterThan(promos / 2);
    expect(strict.genuine).toBeLessThanOrEqual(global.genuine);
    // The second account: self-promotion is welcome there, and genuine comments stay legitimate.
    expect(welcome.promo).toBe(0);
    expect(welcome.genuine).toBe(0);
    expect(genuine).toBeGreaterThan(5);
  });

  it("names the account's labels in the reasoning when they decided the verdict", () => {
    // A promo the global model alone lets through (the figures above show it misses most of them).
    const promo = REST.find((i) => i.kind === 'promo' && none.classifier.classify({ comment: i.comment }).status === 'legitimate');
    expect(promo, 'a self-promotion the global model lets through').toBeDefined();
    const v = both.classifier.classify({ comment: (promo as (typeof REST)[number]).comment }, 'strict');
    // The account's labels decided, and the sentence says so first.
    expect(v.status).toBe('spam');
    expect(v.signals[0]?.id).toBe(ACCOUNT_SIGNAL_ID);
    expect(v.reasoning).toMatch(/^Likely spam \(0\.\d\d\): your moderators' (labels on similar messages|earlier labels)/);
    // The global model's own answer never names labels it does not have.
    for (const probe of PROBES) expect(both.classifier.classify(probe, 'no-labels').reasoning).not.toContain('moderators');
  });
});
