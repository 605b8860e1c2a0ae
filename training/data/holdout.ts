import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLabelledFile } from './loaders.ts';
import type { LabelledRecord } from './record.ts';
import { normalizedText } from './split.ts';

/** training/holdout/: hand-written sets that measure what no model was trained on. */
export const DEFAULT_HOLDOUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'holdout');

/** Each held-out file's records (JSON Lines), by file name; none when the folder does not exist. */
export function holdoutSets(dir: string): Map<string, LabelledRecord[]> {
  const out = new Map<string, LabelledRecord[]>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort())
    out.set(f, loadLabelledFile(path.join(dir, f), 'forms'));
  return out;
}

/** The normalised texts of every held-out record: training leaves out any data record with one of them. */
export function holdoutTexts(dir: string): { files: number; texts: Set<string> } {
  const sets = holdoutSets(dir);
  return { files: sets.size, texts: new Set([...sets.values()].flat().map((r) => normalizedText(r.fields))) };
}
