import path from 'node:path';
import { applyAccountLabelPolicy } from './account-labels.ts';
import { holdoutTexts } from './holdout.ts';
import { loadDataDir } from './loaders.ts';
import type { LabelledRecord } from './record.ts';
import { DEFAULT_SPLIT, normalizedText, splitRecords } from './split.ts';

/**
 * The test split `npm run train` draws from a data folder with a seed: the same records, by the same steps (held-out
 * texts left out, account labels kept to what the global model sees, each text once, its side by its own hash).
 */
export function testSplitOf(dataDir: string, seed: number, holdoutDir: string): LabelledRecord[] {
  const held = holdoutTexts(path.resolve(holdoutDir)).texts;
  const records = loadDataDir(path.resolve(dataDir)).records.filter((r) => !held.has(normalizedText(r.fields)));
  return splitRecords(applyAccountLabelPolicy(records).global, { seed, ...DEFAULT_SPLIT }).test;
}
