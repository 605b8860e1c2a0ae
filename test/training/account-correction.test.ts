import { describe, expect, it } from 'vitest';
import { correctionLogit, DEFAULT_CORRECTION, fitAccountCorrection, NO_CORRECTION, type AccountExample } from '../../training/model/account-correction.ts';

const ex = (label: 0 | 1, indices: number[], globalLogit: number): AccountExample => ({
  indices: Int32Array.from(indices),
  values: Float32Array.from(indices, () => 0.3),
  globalLogit,
  label,
});
const x = (indices: number[]) => ({ indices: Int32Array.from(indices), values: Float32Array.from(indices, () => 0.3) });

// An account whose spam the global model reads as legitimate: every spam carries bucket 900 (its own spam's
// wording), the global model gives it -2; its genuine mail (bucket 70) is rightly legitimate.
const account: AccountExample[] = [
  ...Array.from({ length: 20 }, (_, i) => ex(1, [900, 1000 + i], -2)),
  ...Array.from({ length: 20 }, (_, i) => ex(0, [70, 2000 + i], -2)),
];

describe('a per-account correction over a frozen global model', () => {
  it('is no correction at all without labels', () => {
    expect(fitAccountCorrection([])).toBe(NO_CORRECTION);
    expect(correctionLogit(NO_CORRECTION, x([900, 70]))).toBe(0);
  });

  it("turns the account's own kind of spam to spam and leaves its genuine mail legitimate", () => {
    const c = fitAccountCorrection(account);
    // A new submission of the account: global -2 plus the correction.
    expect(-2 + correctionLogit(c, x([900, 5]))).toBeGreaterThan(0);
    expect(-2 + correctionLogit(c, x([70, 6]))).toBeLessThan(-1);
  });

  it("keeps weights only for buckets the account's labels used, in ascending order", () => {
    const c = fitAccountCorrection(account);
    const used = new Set(account.flatMap((e) => [...e.indices]));
    expect([...c.indices].every((i) => used.has(i))).toBe(true);
    expect([...c.indices]).toEqual([...c.indices].sort((a, b) => a - b));
    expect(c.labels).toBe(40);
    // A submission whose features the account never labelled gets the bias alone.
    expect(correctionLogit(c, x([123456, 654321]))).toBe(c.bias);
  });

  it('moves less the harder its weights are pulled towards zero', () => {
    const weak = fitAccountCorrection(account, { ...DEFAULT_CORRECTION, l2: 0.0001 });
    const strong = fitAccountCorrection(account, { ...DEFAULT_CORRECTION, l2: 0.01 });
    expect(correctionLogit(strong, x([900]))).toBeLessThan(correctionLogit(weak, x([900])));
  });

  it('agrees with the global model where the labels do: a correction of about nothing', () => {
    const agreeing = [...Array.from({ length: 15 }, (_, i) => ex(1, [900, i], 4)), ...Array.from({ length: 15 }, (_, i) => ex(0, [70, 100 + i], -4))];
    const c = fitAccountCorrection(agreeing);
    expect(Math.abs(correctionLogit(c, x([900])))).toBeLessThan(0.5);
    expect(Math.abs(correctionLogit(c, x([70])))).toBeLessThan(0.5);
  });

  it('is the same correction for the same labels (no hidden randomness)', () => {
    const a = fitAccountCorrection(account);
    const b = fitAccountCorrection([...account]);
    expect(a.bias).toBe(b.bias);
    expect([...a.weights]).toEqual([...b.weights]);
  });
});
