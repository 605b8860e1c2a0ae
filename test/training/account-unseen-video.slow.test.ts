import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountCorrections } from '../../core/classifier/account-corrections.ts';
import { logit, sigmoid } from '../../core/classifier/sigmoid.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { initBackend } from '../../training/model/backend.ts';
import { binaryMetrics } from '../../training/model/metrics.ts';
import { fitAccountCorrections } from '../../training/model/fit-account-corrections.ts';
import { isSelfPromotion, unseenVideo, type UnseenVideo } from '../../training/experiments/customer-curve.ts';
import type { LabelledRecord } from '../../training/data/record.ts';

// What a customer sees on a site the global model never saw: the KatyPerry video left out of training (NB-LR on the
// rest of data/, calibrated and thresholded out of fold, as `npm run experiment -- lodo --curve` does), its comments
// in date order. Two accounts label the first 100; everything after them is scored, through the serving side's
// corrections (core/classifier/account-corrections.ts) as training fits them.
const VIDEO = 'KatyPerry';
const LABELLED = 100;

let site: UnseenVideo;
let later: readonly LabelledRecord[];
let corrections: AccountCorrections;
let decision: number;
const selfPromotion = (r: LabelledRecord) => r.label === 'spam' && isSelfPromotion(Object.values(r.fields).join('\n'));
// A site that welcomes its fans' own channels and music labels self-promotion legitimate, and the rest as it is.
const policy = (r: LabelledRecord): LabelledRecord => (selfPromotion(r) ? { ...r, label: 'legitimate' } : r);

function fit(accounts: Record<string, readonly LabelledRecord[]>): AccountCorrections {
  const file = fitAccountCorrections(new Map(Object.entries(accounts)), site.extractor, site.globalLogit, undefined, decision);
  return new AccountCorrections(file);
}

/** The account's log-odds for a submission as the service computes them: the global model's plus its correction. */
function z(c: AccountCorrections, r: LabelledRecord, account: string): number {
  const x = site.extractor.extractCopy(r.fields);
  return site.globalLogit(x) + (c.get(account)?.logit(x) ?? 0);
}

function f1(c: AccountCorrections, account: string, truth: (r: LabelledRecord) => LabelledRecord = (r) => r): number {
  const scored = later.map((r) => ({ source: 'site', label: (truth(r).label === 'spam' ? 1 : 0) as 0 | 1, p: sigmoid(z(c, r, account)) }));
  return binaryMetrics(scored, site.threshold).f1;
}

beforeAll(async () => {
  await initBackend();
  // Six NB-LR trainings (five out-of-fold, one final) on this repository's data: about a minute on a quiet machine.
  site = unseenVideo(path.join(repoRoot, 'data'), VIDEO);
  decision = logit(site.threshold);
  later = site.records.slice(LABELLED);
  const first = site.records.slice(0, LABELLED);
  corrections = fit({ labelling: first, 'policy-differs': first.map(policy) });
}, 1_800_000);

describe("an account's 100 labels of a site the global model never saw", () => {
  it('raise its F1 on the later comments by at least 0.02 over the global model', () => {
    const global = f1(corrections, 'unlabelled');
    expect(f1(corrections, 'labelling')).toBeGreaterThanOrEqual(global + 0.02);
  });

  it('give a policy-differs account its policy: most later self-promotion passes for it alone', () => {
    const promo = later.filter(selfPromotion);
    expect(promo.length).toBeGreaterThanOrEqual(10);
    const passes = (account: string) => promo.filter((r) => z(corrections, r, account) < decision).length;
    expect(passes('policy-differs')).toBeGreaterThan(promo.length / 2);
    // The global model flags most of it, and so it stays for the labelling account and for one without labels.
    expect(passes('unlabelled')).toBeLessThan(promo.length / 2);
    expect(passes('labelling')).toBeLessThan(promo.length / 2);
  });

  it("leaves every other account's verdicts as they were", () => {
    // An account without labels gets the global model exactly.
    expect(corrections.get('unlabelled')).toBeUndefined();
    // The labelling account's correction is the same whether or not the policy-differs account labelled anything.
    const alone = fit({ labelling: site.records.slice(0, LABELLED) });
    for (const r of later) expect(z(corrections, r, 'labelling')).toBe(z(alone, r, 'labelling'));
  });
});
