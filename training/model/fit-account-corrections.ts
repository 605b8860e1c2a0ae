import type { FeatureExtractor } from '../../core/features/index.ts';
import type { AccountsFile, StoredCorrection } from '../../core/classifier/account-corrections.ts';
import type { LabelledRecord } from '../data/record.ts';
import { DEFAULT_CORRECTION, fitAccountCorrection, type AccountExample, type CorrectionOptions } from './account-correction.ts';

/**
 * An account gets a correction from this many labels on. Below it, a correction fitted on an account's first labels
 * lowered that account's F1 or raised its false-positive rate on its later submissions too often (docs/model.md,
 * "Per-account corrections").
 */
export const MIN_ACCOUNT_LABELS = 50;

export interface CorrectionSettings extends CorrectionOptions {
  readonly minLabels: number;
}

export const DEFAULT_CORRECTION_SETTINGS: CorrectionSettings = Object.freeze({ ...DEFAULT_CORRECTION, minLabels: MIN_ACCOUNT_LABELS });

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
    const c = fitAccountCorrection(examples, settings);
    accounts[id] = { labels: c.labels, bias: c.bias, buckets: [...c.indices], weights: [...c.weights] };
  }
  return { accounts };
}
