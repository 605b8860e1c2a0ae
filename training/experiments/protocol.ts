import path from 'node:path';
import { readdirSync } from 'node:fs';
import { FeatureExtractor, DEFAULT_FEATURE_SETTINGS, type FeatureSettings } from '../../core/features/index.ts';
import { loadDataDir, loadLabelledFile } from '../data/loaders.ts';
import { splitRecords } from '../data/split.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';
import type { LabelledRecord } from '../data/record.ts';
import type { TrainingExample } from '../model/train-linear.ts';
import { fitPlatt, thresholdForFpr, type Platt } from '../model/calibrate.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import { binaryMetrics } from '../model/metrics.ts';
import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { DEFAULT_SOURCE_WEIGHTS, DEFAULT_NB_SCALING, sourceWeight } from '../pipeline.ts';
import type { BaseFamily, DerivedFamily, Logits, TrainSettings } from './families.ts';
import { protocolSites, readFormMeta, type Site } from './sites.ts';
import { learningCurve, type CurvePoint } from './learning-curve.ts';

export interface ProtocolOptions {
  readonly dataDir: string;
  readonly holdoutDir: string;
  readonly base: readonly BaseFamily[];
  readonly derived: readonly DerivedFamily[];
  /** Out-of-fold folds for each training's threshold and calibration (the shipped pipeline uses 5). */
  readonly folds: number;
  readonly seed: number;
  readonly targetFpr: number;
  /** Only the sites whose name contains one of these (all when empty). */
  readonly only: readonly string[];
  /** The features to train with (default: the training defaults); e.g. a served model's, to measure it as it was. */
  readonly features?: FeatureSettings;
  /** Also the learning curve of each held-out site (NB-LR: retrained with its labels, and a per-account correction). */
  readonly curve: boolean;
  /** The curve steps at which NB-LR is also retrained with the site's labels (a full training each). */
  readonly retrainSteps: readonly number[];
  /** Where the curve writes each site's items with the global model's log-odds (for fitting corrections offline). */
  readonly dumpDir?: string;
  readonly log: (line: string) => void;
  /** Called with the results so far after each site (a long run keeps what it measured if it is stopped). */
  readonly onProgress?: (results: readonly SiteResult[]) => void;
}

/** The name --only gives to the files of training/holdout/, scored after the sites. */
export const HOLDOUT_SITE = 'holdout';

/** --only named no site: nothing would run. */
export class UnknownSiteError extends Error {
  override name = 'UnknownSiteError';
  constructor(
    readonly unknown: readonly string[],
    readonly valid: readonly string[],
  ) {
    super(`no site matches ${unknown.map((u) => `"${u}"`).join(', ')}; --only takes (part of) one of: ${valid.join('; ')}`);
  }
}

export interface FamilyFigures {
  readonly threshold: number;
  readonly metrics: BinaryMetrics;
}

export interface SiteResult {
  readonly site: string;
  readonly kind: Site['kind'] | 'holdout';
  readonly n: number;
  readonly spam: number;
  readonly families: Record<string, FamilyFigures>;
  readonly curve?: CurvePoint[];
}

export interface Example extends TrainingExample {
  readonly source: string;
}

/** One training pool's models: each family's out-of-fold logits over the pool, and its final model. */
export interface PoolFit {
  readonly labels: (0 | 1)[];
  readonly oof: Map<string, number[]>;
  readonly models: Map<string, Logits>;
}

export function toExample(extractor: FeatureExtractor, r: LabelledRecord, sourceWeights = DEFAULT_SOURCE_WEIGHTS): Example {
  return {
    ...extractor.extractCopy(r.fields),
    label: r.label === 'spam' ? 1 : 0,
    weight: r.weight * sourceWeight(sourceWeights, r.source, r.label),
    source: r.source,
  };
}

export function fitPool(
  pool: readonly Example[],
  base: readonly BaseFamily[],
  s: TrainSettings,
  folds: number,
  log: (l: string) => void,
): PoolFit {
  const order = shuffleInPlace(
    pool.map((_, i) => i),
    seededRandom(s.seed ^ 0x5eed),
  );
  const foldOf = new Int32Array(pool.length);
  order.forEach((idx, pos) => (foldOf[idx] = pos % folds));
  const oof = new Map<string, number[]>();
  const models = new Map<string, Logits>();
  for (const fam of base) {
    const logits = new Array<number>(pool.length).fill(0);
    for (let k = 0; k < folds; k++) {
      const t0 = performance.now();
      const m = fam.train(
        pool.filter((_, i) => foldOf[i] !== k),
        s,
      );
      pool.forEach((e, i) => {
        if (foldOf[i] === k) logits[i] = m.logit(e);
      });
      log(`  ${fam.name} fold ${k + 1}/${folds}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    oof.set(fam.name, logits);
    models.set(fam.name, fam.train(pool, s));
  }
  return { labels: pool.map((e) => e.label), oof, models };
}

/** Each family's logit for one example, derived families from their bases. */
export function familyLogits(fit: PoolFit, derived: readonly DerivedFamily[], x: Example): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, m] of fit.models) out.set(name, m.logit(x));
  for (const d of derived) out.set(d.name, d.combine(d.from.map((f) => out.get(f) as number)));
  return out;
}

export interface Calibrated {
  readonly platt: Platt;
  readonly threshold: number;
}

/** Platt and the threshold for the target FPR from a family's out-of-fold logits, as the pipeline does. */
export function calibrate(fit: PoolFit, derived: readonly DerivedFamily[], targetFpr: number): Map<string, Calibrated> {
  const out = new Map<string, Calibrated>();
  const oof = new Map(fit.oof);
  for (const d of derived)
    oof.set(
      d.name,
      fit.labels.map((_, i) => d.combine(d.from.map((f) => (fit.oof.get(f) as number[])[i] as number))),
    );
  for (const [name, z] of oof) {
    const platt = fitPlatt(z, fit.labels);
    const probs = z.map((v) => sigmoid(platt.a * v + platt.b));
    out.set(name, { platt, threshold: thresholdForFpr(probs, fit.labels, targetFpr) });
  }
  return out;
}

function figures(
  fit: PoolFit,
  cal: Map<string, Calibrated>,
  derived: readonly DerivedFamily[],
  set: readonly Example[],
): Record<string, FamilyFigures> {
  const logits = set.map((x) => familyLogits(fit, derived, x));
  const out: Record<string, FamilyFigures> = {};
  for (const [name, c] of cal) {
    const scored = set.map((x, i) => ({
      source: x.source,
      label: x.label,
      p: sigmoid(c.platt.a * (logits[i]?.get(name) as number) + c.platt.b),
    }));
    out[name] = { threshold: c.threshold, metrics: binaryMetrics(scored, c.threshold) };
  }
  return out;
}

/** The sites, each held out in turn (trained on everything else), then the held-out files scored by models trained on split 42's train + validation. */
export async function runProtocol(opts: ProtocolOptions): Promise<SiteResult[]> {
  const extractor = new FeatureExtractor(opts.features ?? DEFAULT_FEATURE_SETTINGS);
  const { records } = loadDataDir(opts.dataDir);
  // Each text once (the splitter's de-duplication), so no held-out text is also a training text.
  const unique = splitRecords(records, { seed: opts.seed, validation: 0, test: 0 }).train;
  const meta = readFormMeta(path.join(opts.dataDir, 'forms'));
  const examples = new Map(unique.map((r) => [r, toExample(extractor, r)]));
  const s: TrainSettings = { dimension: extractor.dimension, seed: opts.seed, nb: DEFAULT_NB_SCALING };
  const results: SiteResult[] = [];
  const sites = protocolSites(unique, meta);
  const names = [...sites.map((x) => x.name), HOLDOUT_SITE];
  const matches = (name: string, o: string) => name.toLowerCase().includes(o.toLowerCase());
  // A word that names no site would run nothing and print a table of nothing: refused before any training.
  const unknown = opts.only.filter((o) => !names.some((n) => matches(n, o)));
  if (unknown.length > 0) throw new UnknownSiteError(unknown, names);
  const wanted = (name: string) => opts.only.length === 0 || opts.only.some((o) => matches(name, o));
  for (const site of sites.filter((x) => wanted(x.name))) {
    const held = unique.filter(site.has);
    const pool = unique.filter((r) => !site.has(r)).map((r) => examples.get(r) as Example);
    opts.log(`${site.name}: ${held.length} held out, ${pool.length} to train on`);
    const fit = fitPool(pool, opts.base, s, opts.folds, opts.log);
    const cal = calibrate(fit, opts.derived, opts.targetFpr);
    const heldEx = held.map((r) => examples.get(r) as Example);
    const result: SiteResult = {
      site: site.name,
      kind: site.kind,
      n: held.length,
      spam: heldEx.filter((e) => e.label === 1).length,
      families: figures(fit, cal, opts.derived, heldEx),
      ...(opts.curve ? { curve: learningCurve(site, held, heldEx, pool, fit, cal, opts, s) } : {}),
    };
    opts.log(summary(result));
    results.push(result);
    opts.onProgress?.(results);
  }
  if (wanted(HOLDOUT_SITE)) {
    const split = splitRecords(records, { seed: 42, validation: 0.15, test: 0.15 });
    const pool = [...split.train, ...split.validation].map((r) => toExample(extractor, r));
    opts.log(`held-out files: trained on split 42's train + validation (${pool.length}), as the shipped model is`);
    const fit = fitPool(pool, opts.base, { ...s, seed: 42 }, opts.folds, opts.log);
    const cal = calibrate(fit, opts.derived, opts.targetFpr);
    for (const file of readdirSync(opts.holdoutDir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()) {
      const set = loadLabelledFile(path.join(opts.holdoutDir, file), 'forms').map((r) => toExample(extractor, r));
      const result: SiteResult = {
        site: `held-out ${file}`,
        kind: 'holdout',
        n: set.length,
        spam: set.filter((e) => e.label === 1).length,
        families: figures(fit, cal, opts.derived, set),
      };
      opts.log(summary(result));
      results.push(result);
    }
  }
  return results;
}

function summary(r: SiteResult): string {
  return `${r.site}: ${Object.entries(r.families)
    .map(([f, x]) => `${f} F1 ${x.metrics.f1.toFixed(3)} FPR ${(100 * x.metrics.fpr).toFixed(2)}% AUC ${x.metrics.rocAuc?.toFixed(3)}`)
    .join(' | ')}`;
}
