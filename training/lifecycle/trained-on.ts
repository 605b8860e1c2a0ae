import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Manifest } from '../../core/classifier/manifest.ts';
import { applyAccountLabelPolicy } from '../data/account-labels.ts';
import { loadDataDir } from '../data/loaders.ts';
import type { LabelledRecord } from '../data/record.ts';
import { DEFAULT_SPLIT, legacySplitRecords, normalizedText, textHash } from '../data/split.ts';

/** What one model learned from, as 64-bit text hashes, and how that is known; or why it cannot be known. */
export type TrainingSet =
  { readonly known: true; readonly texts: ReadonlySet<string>; readonly how: string } | { readonly known: false; readonly reason: string };

/**
 * The texts a model trained on: its trained-on.txt when it has one; for a model exported before that file, its split
 * rebuilt from the data files its manifest lists, when `dataDir` still holds each of them unchanged (by sha256) and
 * the rebuilt split has the manifest's counts. Otherwise unknown, with the reason.
 */
export function trainingSetOf(modelDir: string, manifest: Manifest, dataDir: string): TrainingSet {
  const recorded = manifest.data.trainedOn;
  if (recorded !== undefined) {
    const file = path.join(modelDir, recorded.file);
    if (!existsSync(file)) return { known: false, reason: `${file} is missing` };
    const text = readFileSync(file, 'utf8');
    if (createHash('sha256').update(text).digest('hex') !== recorded.sha256)
      return { known: false, reason: `${file} changed after export (its sha256 differs from the manifest's)` };
    return { known: true, texts: new Set(text.split('\n').filter(Boolean)), how: `listed in its ${recorded.file}` };
  }
  return rebuildLegacy(manifest, dataDir);
}

function rebuildLegacy(manifest: Manifest, dataDir: string): TrainingSet {
  const changed: string[] = [];
  for (const f of manifest.data.files) {
    const file = path.join(dataDir, f.path);
    if (!existsSync(file)) changed.push(`${f.path} is missing`);
    else if (createHash('sha256').update(readFileSync(file)).digest('hex') !== f.sha256) changed.push(`${f.path} changed`);
  }
  if (changed.length > 0)
    return {
      known: false,
      reason: `it records no list of what it trained on, and its data cannot be rebuilt from ${dataDir}: ${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ` and ${changed.length - 3} more` : ''}`,
    };
  const listed = new Set(manifest.data.files.map((f) => f.path.split(path.sep).join('/')));
  const records = loadDataDir(dataDir, (rel) => listed.has(rel)).records;
  const split = legacySplitRecords(applyAccountLabelPolicy(records).global, { seed: manifest.parameters.seed, ...DEFAULT_SPLIT });
  // The rebuilt split must be the one the manifest counted, side by side and source by source.
  const counts: Record<string, { train: number; validation: number; test: number }> = {};
  for (const side of ['train', 'validation', 'test'] as const)
    for (const r of split[side]) (counts[r.source] ??= { train: 0, validation: 0, test: 0 })[side]++;
  if (JSON.stringify(sortKeys(counts)) !== JSON.stringify(sortKeys(manifest.data.splits)))
    return {
      known: false,
      reason: "it records no list of what it trained on, and its split rebuilt from the data does not match the manifest's counts",
    };
  const testTexts = new Set(split.test.map((r) => normalizedText(r.fields)));
  const texts = new Set(
    records
      .map((r) => normalizedText(r.fields))
      .filter((t) => !testTexts.has(t))
      .map(textHash),
  );
  return {
    known: true,
    texts,
    how: `rebuilt from the ${manifest.data.files.length} data files its manifest lists (unchanged) with seed ${manifest.parameters.seed}`,
  };
}

function sortKeys<T>(o: Record<string, T>): [string, T][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The records no given model trained on, and how many each one had trained on. */
export interface Untrained {
  readonly records: LabelledRecord[];
  readonly of: number;
  /** By model version: records of the input that model trained on. */
  readonly trainedBy: ReadonlyMap<string, number>;
}

export function leaveOutTrained(
  records: readonly LabelledRecord[],
  models: ReadonlyArray<{ version: string; texts: ReadonlySet<string> }>,
): Untrained {
  const trainedBy = new Map(models.map((m) => [m.version, 0]));
  const kept: LabelledRecord[] = [];
  for (const r of records) {
    const h = textHash(normalizedText(r.fields));
    let seen = false;
    for (const m of models) {
      if (!m.texts.has(h)) continue;
      seen = true;
      trainedBy.set(m.version, (trainedBy.get(m.version) ?? 0) + 1);
    }
    if (!seen) kept.push(r);
  }
  return { records: kept, of: records.length, trainedBy };
}
