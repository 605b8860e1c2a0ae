import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { loadLabelledFile, loadYoutubeCsv } from '../data/loaders.ts';
import type { LabelledRecord } from '../data/record.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';

/** A customer's site as the per-account measurements see it: its submissions in the order they arrive. */
export interface Site {
  readonly name: string;
  readonly items: readonly LabelledRecord[];
}

/** A video's comments by their date (undated ones first, in file order: the collection lists them so). */
export function videoSite(csv: string): Site {
  const rows = parse(readFileSync(csv), { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
  const records = loadYoutubeCsv(csv);
  const order = records.map((_, i) => i).sort((a, b) => (rows[a]?.DATE ?? '').localeCompare(rows[b]?.DATE ?? '') || a - b);
  return { name: path.basename(csv, '.csv'), items: order.map((i) => records[i] as LabelledRecord) };
}

/** A held-out file's records in a seeded order (they have no arrival time). */
export function fileSite(file: string, seed: number): Site {
  const items = shuffleInPlace(loadLabelledFile(file), seededRandom(seed));
  return { name: path.basename(file, path.extname(file)), items };
}

/** The same site's items in another seeded order: how much the first labels' luck moves the figures. */
export function reordered(site: Site, seed: number): Site {
  return { name: site.name, items: shuffleInPlace([...site.items], seededRandom(seed)) };
}
