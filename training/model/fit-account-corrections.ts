import type { FeatureExtractor } from '../../core/features/index.ts';
import type { AccountsFile, StoredCorrection } from '../../core/classifier/account-corrections.ts';
import type { LabelledRecord } from '../data/record.ts';
import {
  DEFAULT_CORRECTION,
  fitAccountCorrection,
  type AccountCorrection,
  type AccountExample,
  type CorrectionOptions,
} from './account-correction.ts';

/**
 * An account gets a correction from this many labels on. Below it, a correction fitted on an account's first labels
 * lowered that account's F1 or raised its false-positive rate on its later submissions too often (docs/model.md,
 * "Per-account corrections").
 */
export const MIN_ACCOUNT_LABELS = 20;

/**
 * Weights smaller than this are not exported: a feature's value is about 0.1, so such a weight moves a submission's
 * log-odds by a thousandth, and every bucket kept costs the service a lookup (bench/account-correction.ts).
 */
export const MIN_CORRECTION_WEIGHT = 0.01;

/**
 * The pull of the correction's weights towards zero, 1,000 times the fitter's default: weaker pulls learnt an account's
 * spam faster but flagged its genuine mail far more often (docs/model.md, "Per-account corrections").
 */
export const CORRECTION_L2 = 1;

export interface CorrectionSettings extends CorrectionOptions {
  readonly minLabels: number;
  readonly minWeight: number;
}

export const DEFAULT_CORRECTION_SETTINGS: CorrectionSettings = Object.freeze({
  ...DEFAULT_CORRECTION,
  l2: CORRECTION_L2,
  minLabels: MIN_ACCOUNT_LABELS,
  minWeight: MIN_CORRECTION_WEIGHT,
});

/**
 * One correction per account with at least `minLabels` labels, each fitted on that account's labels alone over the
 * frozen global model's calibrated log-odds (`globalLogit`), so nothing of one account reaches another's correction.
 * Accounts in id order, so the same labels give the same file.
 */
export function fitAccountCorrections(
  byAccount: ReadonlyMap<string, readonly LabelledRecord[]>,
  extractor: FeatureExtractor,
  globalLogit: (x: { indices: Int32Array; values: Float32Array }) => number,
  settings: CorrectionSettings = DEFAULT_CORRECTION_SETTINGS,
): AccountsFile {
  const accounts: Record<string, StoredCorrection> = {};
  for (const id of [...byAccount.keys()].sort()) {
    const labels = byAccount.get(id) as readonly LabelledRecord[];
    if (labels.length < settings.minLabels) continue;
    const examples: AccountExample[] = labels.map((r) => {
      const x = extractor.extractCopy(r.fields);
      return { ...x, globalLogit: globalLogit(x), label: r.label === 'spam' ? 1 : 0 };
    });
    const c = pruned(fitAccountCorrection(examples, settings), settings.minWeight);
    accounts[id] = { labels: c.labels, bias: c.bias, buckets: [...c.indices], weights: [...c.weights] };
  }
  return { accounts };
}

/** The correction without its weights under `minWeight` in size: what is exported and served. */
export function pruned(c: AccountCorrection, minWeight: number): AccountCorrection {
  const kept = [...c.weights.keys()].filter((i) => Math.abs(c.weights[i] as number) >= minWeight);
  return {
    ...c,
    indices: Int32Array.from(kept, (i) => c.indices[i] as number),
    weights: Float32Array.from(kept, (i) => c.weights[i] as number),
  };
}
