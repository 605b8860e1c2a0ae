import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { LabelledRecord } from '../data/record.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';
import { LABEL_WEIGHTS } from '../data/loaders.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import { binaryMetrics } from '../model/metrics.ts';
import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { fitAccountCorrection, correctionLogit } from '../model/account-correction.ts';
import { CORRECTION_SETTINGS } from './corrections.ts';
import type { TrainSettings } from './families.ts';
import type { Calibrated, Example, PoolFit, ProtocolOptions } from './protocol.ts';
import type { Site } from './sites.ts';

export const CURVE_STEPS = [25, 50, 100, 200] as const;
/** A step is measured only if at least this many of the site's items are left to score. */
const MIN_REST = 60;

export interface CurvePoint {
  readonly labelled: number;
  readonly rest: number;
  readonly global: BinaryMetrics;
  /** Only at the steps the run retrains at (each costs a full training). */
  readonly retrained?: BinaryMetrics;
  readonly corrections: Record<string, BinaryMetrics>;
}

/**
 * Arrival order of a site's items: a video's comments by their date (undated ones after the dated, in file order);
 * forms have no date, and their ids sort every legitimate form before every spam one (fl-* before fs-*), so they
 * arrive in a seeded random order instead.
 */
export function arrivalOrder(held: readonly LabelledRecord[], dataDir: string): number[] {
  const dates = new Map<string, string>();
  for (const video of new Set(held.filter((r) => r.source === 'youtube').map((r) => r.id.split(':')[0] as string))) {
    const rows = parse(readFileSync(path.join(dataDir, 'youtube', `${video}.csv`)), {
      columns: true,
      bom: true,
      skip_empty_lines: true,
    }) as Record<string, string>[];
    rows.forEach((row, i) => dates.set(`${video}:${i + 1}`, row.DATE ?? ''));
  }
  const key = (r: LabelledRecord) => dates.get(r.id) || '\uffff';
  const row = (r: LabelledRecord) => Number(r.id.split(':').at(-1)) || 0;
  const comments = held.map((_, i) => i).filter((i) => held[i]?.source === 'youtube');
  comments.sort((a, b) => {
    const ra = held[a] as LabelledRecord;
    const rb = held[b] as LabelledRecord;
    const ka = key(ra);
    const kb = key(rb);
    return ka !== kb ? (ka < kb ? -1 : 1) : row(ra) - row(rb);
  });
  const others = held.map((_, i) => i).filter((i) => held[i]?.source !== 'youtube');
  others.sort((a, b) => ((held[a] as LabelledRecord).id < (held[b] as LabelledRecord).id ? -1 : 1));
  return [...comments, ...shuffleInPlace(others, seededRandom(ARRIVAL_SEED))];
}

export const ARRIVAL_SEED = 2026;

/**
 * What a customer on this site would see after labelling its first 25/50/100/200 items: NB-LR alone (the global
 * model that never saw the site), NB-LR retrained with those labels (weighted as the pipeline weighs moderators'
 * labels), and a per-account correction fitted on them over the frozen global model. Scored on the rest of the site.
 * The retrained model keeps the global model's calibration and threshold: 200 labels beside ~8,000 records move
 * them little, and re-deriving them would cost five more trainings per step.
 */
export function learningCurve(
  site: Site,
  held: readonly LabelledRecord[],
  heldEx: readonly Example[],
  pool: readonly Example[],
  fit: PoolFit,
  cal: Map<string, Calibrated>,
  opts: ProtocolOptions,
  s: TrainSettings,
): CurvePoint[] {
  const nblr = opts.base.find((f) => f.name === 'nblr');
  const global = fit.models.get('nblr');
  const c = cal.get('nblr');
  if (!nblr || !global || !c) return [];
  const arrival = arrivalOrder(held, opts.dataDir);
  const order = arrival.map((i) => heldEx[i] as Example);
  const calibrated = order.map((x) => c.platt.a * global.logit(x) + c.platt.b);
  const points: CurvePoint[] = [];
  // The site's items in arrival order with the frozen global log-odds: what a correction is fitted from, kept so
  // that correction settings can be compared without retraining the global model.
  if (opts.dumpDir) {
    const items = order.map((x, i) => ({
      id: (held[arrival[i] as number] as LabelledRecord).id,
      i: [...x.indices],
      v: [...x.values],
      z: calibrated[i],
      y: x.label,
    }));
    // A dump folder that does not exist yet is made, not found missing after the site's five trainings.
    mkdirSync(opts.dumpDir, { recursive: true });
    writeFileSync(
      path.join(opts.dumpDir, `${site.name.replace(/[^a-z0-9]+/gi, '-')}.json`),
      JSON.stringify({ site: site.name, threshold: c.threshold, items }),
    );
  }
  const score = (xs: readonly Example[], z: readonly number[]) =>
    binaryMetrics(
      xs.map((x, i) => ({ source: site.name, label: x.label, p: sigmoid(z[i] as number) })),
      c.threshold,
    );
  for (const n of CURVE_STEPS) {
    if (order.length - n < MIN_REST) break;
    const labelled = order.slice(0, n);
    const rest = order.slice(n);
    const restGlobal = calibrated.slice(n);
    // Moderators' labels as the pipeline weighs them: a label that contradicts the model's verdict counts 3.
    const labels = labelled.map((x, i) => {
      const contradicts = (sigmoid(calibrated[i] as number) >= c.threshold ? 1 : 0) !== x.label;
      return { ...x, weight: contradicts ? LABEL_WEIGHTS.contradicts : LABEL_WEIGHTS.confirms, source: 'labels' };
    });
    const t0 = performance.now();
    const retrained = opts.retrainSteps.includes(n) ? nblr.train([...pool, ...labels], s) : null;
    if (retrained) opts.log(`  ${site.name}: retrained with ${n} labels in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const corrections: Record<string, BinaryMetrics> = {};
    for (const [name, o] of Object.entries(CORRECTION_SETTINGS)) {
      const corr = fitAccountCorrection(
        labelled.map((x, i) => ({ indices: x.indices, values: x.values, globalLogit: calibrated[i] as number, label: x.label })),
        o,
      );
      corrections[name] = score(
        rest,
        rest.map((x, i) => (restGlobal[i] as number) + correctionLogit(corr, x)),
      );
    }
    points.push({
      labelled: n,
      rest: rest.length,
      global: score(rest, restGlobal),
      ...(retrained
        ? {
            retrained: score(
              rest,
              rest.map((x) => c.platt.a * retrained.logit(x) + c.platt.b),
            ),
          }
        : {}),
      corrections,
    });
    const p = points.at(-1) as CurvePoint;
    opts.log(
      `  ${site.name} @${n}: global F1 ${p.global.f1.toFixed(3)} FPR ${(100 * p.global.fpr).toFixed(2)}% | retrained ${p.retrained ? `${p.retrained.f1.toFixed(3)} ${(100 * p.retrained.fpr).toFixed(2)}%` : '-'} | ` +
        Object.entries(corrections)
          .map(([k, m]) => `${k} ${m.f1.toFixed(3)} ${(100 * m.fpr).toFixed(2)}%`)
          .join(' | '),
    );
  }
  return points;
}
