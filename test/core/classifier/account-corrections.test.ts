import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountCorrection, readAccountCorrections } from '../../../core/classifier/account-corrections.ts';
import { ModelLoadError } from '../../../core/classifier/errors.ts';
import { ACCOUNT_SIGNAL_ID, withAccountSignal } from '../../../core/classifier/reasoning.ts';

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
