import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountCorrection, AccountCorrections, readAccountCorrections } from '../../../core/classifier/account-corrections.ts';
import { ModelLoadError } from '../../../core/classifier/errors.ts';
import { LinearClassifier } from '../../../core/classifier/linear-classifier.ts';
import { listModelVersions, loadModelFolder } from '../../../core/classifier/load.ts';
import { ACCOUNT_SIGNAL_ID, ACCOUNT_THRESHOLD_TEXT, withAccountSignal } from '../../../core/classifier/reasoning.ts';
import { logit } from '../../../core/classifier/sigmoid.ts';
import { FeatureExtractor } from '../../../core/features/index.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'formguard-accounts-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (accounts: unknown) => writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({ accounts }));

describe('accounts.json', () => {
  it('adds the bias and the weights of the buckets present, and nothing for buckets it lacks', () => {
    const c = new AccountCorrection({ labels: 30, bias: 0.25, buckets: [3, 70, 1_000_000], weights: [1, -2, 0.5] });
    expect(c.logit({ indices: Int32Array.from([3, 4, 1_000_000]), values: Float32Array.from([0.5, 9, 2]) })).toBeCloseTo(0.25 + 0.5 + 1, 6);
    expect(c.logit({ indices: Int32Array.from([5, 6]), values: Float32Array.from([1, 1]) })).toBe(0.25);
    // Only the first `count` features are the submission's.
    expect(c.logit({ count: 1, indices: Int32Array.from([3, 70]), values: Float32Array.from([1, 1]) })).toBeCloseTo(1.25, 6);
  });

  it('is read per account, and an account missing from it has no correction', async () => {
    write({ acme: { labels: 25, bias: 0.1, buckets: [1, 2], weights: [0.5, -0.5] } });
    const all = await readAccountCorrections(dir, 16);
    expect(all.get('acme')?.labels).toBe(25);
    expect(all.get('globex')).toBeUndefined();
  });

  it('refuses a file whose buckets the model does not have, or that is not sorted, naming the place', async () => {
    write({ acme: { labels: 25, bias: 0, buckets: [1, 16], weights: [0.5, 0.5] } });
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(ModelLoadError);
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/account acme names bucket 16; the model has 16/);
    write({ acme: { labels: 25, bias: 0, buckets: [2, 1], weights: [0.5, 0.5] } });
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/accounts\.acme.*strictly ascending/);
    rmSync(path.join(dir, 'accounts.json'));
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/cannot read .*accounts\.json \(the manifest lists it\)/);
  });

  it("takes an account's threshold shift off its log-odds", () => {
    const c = new AccountCorrection({ labels: 30, bias: 0.25, thresholdShift: 1.5, buckets: [3], weights: [1] });
    expect(c.logit({ indices: Int32Array.from([3]), values: Float32Array.from([0.5]) })).toBeCloseTo(0.25 + 0.5 - 1.5, 6);
    expect(new AccountCorrection({ labels: 30, bias: 0.25, thresholdShift: 1.5, buckets: [], weights: [] }).logit(x0)).toBe(-1.25);
  });

  it('reads version 2 with threshold shifts, and refuses what it cannot apply, saying why', async () => {
    const shifted = { acme: { labels: 25, bias: 0.1, thresholdShift: 0.8, buckets: [], weights: [] } };
    writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({ version: 2, accounts: shifted }));
    expect((await readAccountCorrections(dir, 16)).get('acme')?.thresholdShift).toBe(0.8);
    // A shift in a file that does not say it is version 2.
    write(shifted);
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/version: a threshold shift needs version 2/);
    // A newer trainer's file.
    writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({ version: 3, accounts: {} }));
    await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/is version 3; this service reads versions up to 2/);
    // Shifts out of bounds: below the model's threshold, or past the most training ever sets.
    for (const thresholdShift of [-0.5, 3.5]) {
      writeFileSync(
        path.join(dir, 'accounts.json'),
        JSON.stringify({ version: 2, accounts: { acme: { ...shifted.acme, thresholdShift } } }),
      );
      await expect(readAccountCorrections(dir, 16)).rejects.toThrow(/accounts\.acme\.thresholdShift/);
    }
  });
});

const x0 = { indices: Int32Array.from([5]), values: Float32Array.from([1]) };

describe("an account's own threshold, served", () => {
  // Messages near the model's threshold: the newest model calls some of them spam, by less than 2.8 in log-odds.
  const CANDIDATES = [
    'free iphone giveaway visit my profile',
    'Great video! Visit my page for free gift cards',
    'Click here for cheap followers http://example.com',
    'Hi, we offer SEO services to rank your site, reply for a quote',
    'I make beats, check out my music and tell me what you think',
    'make money fast working from home',
    'Earn money from home, message me for details',
    'win a free gift card',
  ];
  it("decides that account's verdicts only, and the reasoning names it when it decided", async () => {
    const models = path.join(repoRoot, 'models');
    const global = await loadModelFolder(path.join(models, (await listModelVersions(models)).at(-1) as string));
    const decision = logit(global.manifest.threshold);
    const margin = (text: string) => logit(global.spamProbability({ comment: text })) - decision;
    const near = CANDIDATES.filter((t) => margin(t) > 0.05 && margin(t) < 2.8);
    expect(near.length, 'messages the model flags by a small margin').toBeGreaterThan(0);
    const corrections = new AccountCorrections({
      version: 2,
      accounts: {
        // Raised past every one of them, nothing else.
        lenient: { labels: 40, bias: 0, thresholdShift: 2.9, buckets: [], weights: [] },
        // A correction of the same bias and no shift.
        plain: { labels: 40, bias: 0, buckets: [], weights: [] },
      },
    });
    const served = new LinearClassifier(global.manifest, new FeatureExtractor(global.manifest.featureSettings), global.scorer, corrections);
    for (const text of near) {
      const fields = { comment: text };
      const before = global.classify(fields);
      expect(before.status).toBe('spam');
      const lenient = served.classify(fields, 'lenient');
      expect(lenient.status).toBe('legitimate');
      expect(lenient.signals[0]).toMatchObject({ id: ACCOUNT_SIGNAL_ID, text: ACCOUNT_THRESHOLD_TEXT });
      expect(lenient.reasoning).toContain(ACCOUNT_THRESHOLD_TEXT);
      // Every other account, and a call without one, gets exactly the model's answer.
      for (const other of ['plain', 'unlabelled', undefined]) {
        const v = served.classify(fields, other);
        expect([v.status, v.spamProbability, v.reasoning]).toEqual([before.status, before.spamProbability, before.reasoning]);
      }
    }
  });
});

describe("the account's labels among the reasons", () => {
  const model = [{ id: 'wording', text: "spam-typical wording ('seo')", contribution: 1.2 }];
  it('comes first when it changed the verdict', () => {
    const s = withAccountSignal(model, 'spam', 0.4, 0.05, true);
    expect(s[0]).toMatchObject({ id: ACCOUNT_SIGNAL_ID, text: "your moderators' labels on similar messages" });
  });
  it('is named by its size when it pushed the verdict its way, and not when it was small or pushed the other way', () => {
    expect(withAccountSignal(model, 'spam', 2, 0, false).map((x) => x.id)).toEqual([ACCOUNT_SIGNAL_ID, 'wording']);
    expect(withAccountSignal(model, 'spam', 0.6, 0, false).map((x) => x.id)).toEqual(['wording', ACCOUNT_SIGNAL_ID]);
    expect(withAccountSignal(model, 'spam', 0.2, 0, false)).toEqual(model);
    expect(withAccountSignal(model, 'spam', -3, 0, false)).toEqual(model);
  });
  it('says "earlier labels" when the bias, not this message, made most of it', () => {
    expect(withAccountSignal([], 'legitimate', -1, -0.8, true)[0]?.text).toBe("your moderators' earlier labels");
  });
});
