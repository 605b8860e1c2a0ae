import { describe, expect, it } from 'vitest';
import { accountsFileSchema, MAX_THRESHOLD_SHIFT } from '../../core/classifier/account-corrections.ts';
import { FeatureExtractor, DEFAULT_FEATURE_SETTINGS } from '../../core/features/index.ts';
import type { AccountExample } from '../../training/model/account-correction.ts';
import type { LabelledRecord } from '../../training/data/record.ts';
import {
  accountCorrection,
  DEFAULT_CORRECTION_SETTINGS,
  fitAccountCorrections,
  thresholdShift,
  type CorrectionSettings,
} from '../../training/model/fit-account-corrections.ts';

const ex = (label: 0 | 1, globalLogit: number): AccountExample => ({
  indices: Int32Array.of(1),
  values: Float32Array.of(0.3),
  globalLogit,
  label,
});
/** A held-out label with the log-odds a correction that never saw it gave it. */
const held = (label: 0 | 1, globalLogit: number, z: number) => ({ e: ex(label, globalLogit), z });

describe("an account's own threshold, from its held-out labels", () => {
  it('raises it just enough that no more genuine labels are flagged than the global model flags (flags)', () => {
    const scored = [held(0, -2, 0.5), held(0, -1, 1.2), held(0, 0.3, 0.4), held(1, 1, 3)];
    // The global model flags one genuine label (0.3); the correction three. Raising by just over 0.5 unflags 0.5 and
    // 0.4, leaving one.
    const shift = thresholdShift(scored, 0, 'flags');
    expect(shift).toBeGreaterThan(0.5);
    expect(shift).toBeLessThan(0.501);
  });

  it("cancels the correction's mean push on the genuine labels, whatever it does to spam (mean)", () => {
    const scored = [held(0, -3, -2), held(0, -2, -1.5), held(1, -1, 4)];
    expect(thresholdShift(scored, 0, 'mean')).toBeCloseTo(0.75, 9);
  });

  it("holds the genuine labels' summed chance of being flagged at the global model's (soft)", () => {
    const scored = [held(0, -3, -1), held(0, -2, 0)];
    const shift = thresholdShift(scored, 0, 'soft');
    const chance = (zs: number[]) => zs.reduce((s, z) => s + 1 / (1 + Math.exp(-z)), 0);
    expect(chance([-1 - shift, 0 - shift])).toBeCloseTo(chance([-3, -2]), 6);
  });

  it('never lowers the threshold, never raises it past the bound, and takes nothing from spam labels alone', () => {
    // A correction that pulls genuine mail down: no raise.
    expect(thresholdShift([held(0, -1, -3), held(0, 0.5, -1)], 0, 'mean')).toBe(0);
    expect(thresholdShift([held(0, -1, -3), held(0, 0.5, -1)], 0, 'flags')).toBe(0);
    // One that flags every genuine label far above the threshold: the bound, for every rule.
    const far = [held(0, -5, 20), held(0, -5, 30)];
    for (const rule of ['flags', 'mean', 'soft'] as const) {
      expect(thresholdShift(far, 0, rule)).toBe(MAX_THRESHOLD_SHIFT);
      expect(thresholdShift(far, 0, rule, 1)).toBe(1);
    }
    expect(thresholdShift([held(1, -1, 5)], 0, 'mean')).toBe(0);
  });
});

// An account whose spam (bucket 900) the global model misses, and whose genuine comments share wording with it
// (bucket 77 in both): a correction learns 900 and 77, and lifts the genuine comments' log-odds too.
const x = (indices: number[]) => ({ indices: Int32Array.from(indices), values: Float32Array.from(indices, () => 0.5) });
const labels = (genuine: number): AccountExample[] => [
  ...Array.from({ length: 40 }, (_, i) => ({ ...x([900, 77, 5000 + i]), globalLogit: -1.5, label: 1 as const })),
  ...Array.from({ length: genuine }, (_, i) => ({ ...x([77, 6000 + i]), globalLogit: -2.5, label: 0 as const })),
];
const MEAN: CorrectionSettings = { ...DEFAULT_CORRECTION_SETTINGS, threshold: 'mean' };

describe("the threshold in the account's correction", () => {
  it('is off by default: the correction training exports has no shift', () => {
    const c = accountCorrection(labels(30), DEFAULT_CORRECTION_SETTINGS, 0);
    expect(c).not.toBeNull();
    expect(c?.thresholdShift).toBeUndefined();
  });

  it("with a rule, is chosen from the account's own labels and bounded", () => {
    const c = accountCorrection(labels(30), MEAN, 0);
    expect(c?.thresholdShift).toBeGreaterThan(0);
    expect(c?.thresholdShift).toBeLessThanOrEqual(MAX_THRESHOLD_SHIFT);
    // A bound asked above MAX_THRESHOLD_SHIFT is held to it (the service refuses more).
    const wide = accountCorrection(labels(30), { ...MEAN, threshold: 'flags', maxThresholdShift: 50 }, 0);
    expect(wide?.thresholdShift ?? 0).toBeLessThanOrEqual(MAX_THRESHOLD_SHIFT);
  });

  it('keeps the global model for an account with too few genuine labels to show its false-positive rate', () => {
    expect(accountCorrection(labels(4), MEAN, 0)).toBeNull();
    // Without a rule the same labels do get a correction.
    expect(accountCorrection(labels(4), DEFAULT_CORRECTION_SETTINGS, 0)).not.toBeNull();
  });
});

describe('accounts.json with thresholds', () => {
  const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);
  const record = (id: string, text: string, label: 'spam' | 'legitimate'): LabelledRecord => ({
    id,
    source: 'labels',
    fields: { message: text },
    label,
    weight: 1,
  });
  // Spam the (stand-in) global model misses, half of it in the very words of the account's genuine mail: what the
  // correction learns from that half lifts the genuine mail as well.
  const site = [
    ...Array.from({ length: 30 }, (_, i) => record(`s${i}`, i % 2 ? 'views for your channel' : 'buy views for your channel', 'spam')),
    ...Array.from({ length: 20 }, (_, i) => record(`g${i}`, 'views for your channel', 'legitimate')),
  ];
  const globalLogit = () => -1.5;

  it("gives each account a threshold from its own labels alone: another account's labels never change it", () => {
    const strict = site;
    const lenient = site.map((r) => ({ ...r, label: 'legitimate' as const }));
    const alone = fitAccountCorrections(new Map([['strict', strict]]), extractor, globalLogit, MEAN, 0);
    const both = fitAccountCorrections(
      new Map([
        ['strict', strict],
        ['lenient', lenient],
      ]),
      extractor,
      globalLogit,
      MEAN,
      0,
    );
    expect(both.accounts.strict).toEqual(alone.accounts.strict);
    expect(alone.accounts.strict?.thresholdShift).toBeGreaterThan(0);
    // The lenient account's correction pulls its mail down: its threshold stays the model's.
    expect(both.accounts.lenient?.thresholdShift).toBeUndefined();
    // A file with a shift says so (version 2), and is what the service's schema accepts.
    expect(both.version).toBe(2);
    expect(accountsFileSchema.parse(both)).toEqual(both);
  });

  it('stays version 1 (no version field) when no account has a shift, so older services still read it', () => {
    const file = fitAccountCorrections(new Map([['strict', site]]), extractor, globalLogit, DEFAULT_CORRECTION_SETTINGS, 0);
    expect(Object.keys(file.accounts)).toEqual(['strict']);
    expect(file.version).toBeUndefined();
  });
});
