import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { binaryMetrics } from '../model/metrics.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { correctionLogit, DEFAULT_CORRECTION, fitAccountCorrection, type CorrectionOptions } from '../model/account-correction.ts';
import { ARRIVAL_SEED, CURVE_STEPS } from './learning-curve.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';

/** One site as the learning curve dumps it: its items in arrival order with the frozen global model's log-odds. */
export interface SiteDump {
  readonly site: string;
  readonly threshold: number;
  /** `id`: the record's id (dumps before it was written lack it). */
  readonly items: { id?: string; i: number[]; v: number[]; z: number; y: 0 | 1 }[];
}

/** The correction settings the curve measures: the default pull, and ten and a hundred times weaker. */
export const CORRECTION_SETTINGS: Readonly<Record<string, CorrectionOptions>> = {
  'l2 0.01': { ...DEFAULT_CORRECTION, l2: 0.01 },
  'l2 0.1': { ...DEFAULT_CORRECTION, l2: 0.1 },
  'l2 1 (default)': DEFAULT_CORRECTION,
};

export interface CorrectionPoint {
  readonly site: string;
  readonly labelled: number;
  readonly global: BinaryMetrics;
  readonly corrected: Record<string, BinaryMetrics>;
}

/** Each dumped site's first N items fit a correction; the rest are scored with and without it. */
export function correctionCurve(dumpDir: string, settings = CORRECTION_SETTINGS, minRest = 60): CorrectionPoint[] {
  const out: CorrectionPoint[] = [];
  for (const file of readdirSync(dumpDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const d = JSON.parse(readFileSync(path.join(dumpDir, file), 'utf8')) as SiteDump;
    const items = d.items.map((x) => ({ indices: Int32Array.from(x.i), values: Float32Array.from(x.v), globalLogit: x.z, label: x.y }));
    // Forms have no arrival time: a seeded random order (dumps made before the curve shuffled forms held them
    // sorted by id, every legitimate form before every spam one; shuffling a shuffled order is still random).
    if (!d.site.startsWith('video')) shuffleInPlace(items, seededRandom(ARRIVAL_SEED));
    for (const n of CURVE_STEPS) {
      if (items.length - n < minRest) break;
      const rest = items.slice(n);
      const score = (z: (x: (typeof items)[number]) => number) =>
        binaryMetrics(
          rest.map((x) => ({ source: d.site, label: x.label, p: sigmoid(z(x)) })),
          d.threshold,
        );
      const corrected: Record<string, BinaryMetrics> = {};
      for (const [name, o] of Object.entries(settings)) {
        const c = fitAccountCorrection(items.slice(0, n), o);
        corrected[name] = score((x) => x.globalLogit + correctionLogit(c, x));
      }
      out.push({ site: d.site, labelled: n, global: score((x) => x.globalLogit), corrected });
    }
  }
  return out;
}
