import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { logit, sigmoid } from '../../core/classifier/sigmoid.ts';
import { binaryMetrics } from '../model/metrics.ts';
import { correctionLogit, type AccountExample } from '../model/account-correction.ts';
import { accountCorrection, DEFAULT_CORRECTION_SETTINGS, type CorrectionSettings } from '../model/fit-account-corrections.ts';
import type { SiteDump } from './corrections.ts';
import { arrivalOrder, CURVE_STEPS } from './learning-curve.ts';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor } from '../../core/features/index.ts';
import { loadDataDir, loadYoutubeCsv } from '../data/loaders.ts';
import { splitRecords } from '../data/split.ts';
import type { LabelledRecord } from '../data/record.ts';
import { DEFAULT_NB_SCALING } from '../pipeline.ts';
import { NBLR, type Logits } from './families.ts';
import { calibrate, fitPool, toExample, type Calibrated } from './protocol.ts';
import { protocolSites } from './sites.ts';

/**
 * Self-promotion in a video's comments: a commenter asking for views, subscribers or listens for their own channel,
 * music or page. The YouTube collection labels it spam; a site that welcomes its fans' own work labels it legitimate.
 */
const SELF_PROMOTION =
  /\b(?:my|our)\s+(?:(?:new|own|first|youtube|yt)\s+)?(?:channel|music|videos?|songs?|covers?|raps?|rapping|beats?|page|vlogs?|mixtape|album|stuff)\b|\bsub(?:scribe|scribers?|s)?\b|\bsub4sub\b/i;

export function isSelfPromotion(text: string): boolean {
  return SELF_PROMOTION.test(text);
}

/** The two customers the curve follows: one labels its site as the data say, one whose policy differs. */
export const ACCOUNTS = ['labelling', 'policy-differs'] as const;
export type CustomerAccount = (typeof ACCOUNTS)[number];

/** What an account answers for an item: the policy-differs account calls every self-promotion comment legitimate. */
export function accountLabel(account: CustomerAccount, label: 0 | 1, selfPromotion: boolean): 0 | 1 {
  return account === 'policy-differs' && selfPromotion ? 0 : label;
}

export interface AccountFigures {
  /** Against that account's own labels of the later items. */
  readonly global: BinaryMetrics;
  readonly corrected: BinaryMetrics;
  /** Whether the account got a correction (false: its labels did not beat the global model, it keeps it). */
  readonly fitted: boolean;
  /** Later self-promotion comments that pass (are not flagged): global model alone, with the account's correction. */
  readonly selfPromotion: { readonly of: number; readonly globalPass: number; readonly correctedPass: number };
}

export interface CustomerPoint {
  readonly site: string;
  readonly labelled: number;
  readonly rest: number;
  readonly accounts: Record<CustomerAccount, AccountFigures>;
}

/** A step is measured only if at least this many of the site's items are left to score. */
export const MIN_REST = 60;

export interface CustomerItem extends AccountExample {
  readonly selfPromotion: boolean;
}

/**
 * A site's items in arrival order (a video's comments by date) with the frozen global model's calibrated log-odds;
 * for each step N each account labels the first N, gets the correction training would export for those labels
 * (pull chosen from them, or none), and is scored on the items after those N at the global model's threshold (the
 * global model on the same items beside it).
 */
export function customerCurve(
  site: string,
  items: readonly CustomerItem[],
  threshold: number,
  settings: CorrectionSettings = DEFAULT_CORRECTION_SETTINGS,
  steps: readonly number[] = CURVE_STEPS,
): CustomerPoint[] {
  const decision = logit(threshold);
  const out: CustomerPoint[] = [];
  for (const n of steps) {
    if (items.length - n < MIN_REST) break;
    const rest = items.slice(n);
    const accounts = {} as Record<CustomerAccount, AccountFigures>;
    for (const account of ACCOUNTS) {
      const own = (x: CustomerItem) => accountLabel(account, x.label, x.selfPromotion);
      const labels = items.slice(0, n).map((x) => ({ ...x, label: own(x) }));
      const c = accountCorrection(labels, settings, decision);
      const z = (x: CustomerItem) => x.globalLogit + (c ? correctionLogit(c, x) : 0);
      const score = (f: (x: CustomerItem) => number) =>
        binaryMetrics(
          rest.map((x) => ({ source: site, label: own(x), p: sigmoid(f(x)) })),
          threshold,
        );
      const promo = rest.filter((x) => x.selfPromotion);
      accounts[account] = {
        global: score((x) => x.globalLogit),
        corrected: score(z),
        fitted: c !== null,
        selfPromotion: {
          of: promo.length,
          globalPass: promo.filter((x) => x.globalLogit < decision).length,
          correctedPass: promo.filter((x) => z(x) < decision).length,
        },
      };
    }
    out.push({ site, labelled: n, rest: rest.length, accounts });
  }
  return out;
}

/**
 * Whether a video's comments have an arrival order: every comment dated. Eminem's spam comments carry no date
 * (all 245), so its "arrival order" puts every spam comment after every genuine one: no customer sees that.
 */
export function hasArrivalOrder(csv: string): boolean {
  const rows = parse(readFileSync(csv), { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
  return rows.every((r) => (r.DATE ?? '') !== '');
}

/** The curve for every video dumped by `lodo --curve --curve-dump` (dumps with record ids; comments from dataDir). */
export function customerCurves(dumpDir: string, dataDir: string, settings = DEFAULT_CORRECTION_SETTINGS): CustomerPoint[] {
  const text = new Map<string, string>();
  const undated = new Set<string>();
  for (const f of readdirSync(path.join(dataDir, 'youtube')).filter((n) => n.endsWith('.csv'))) {
    for (const r of loadYoutubeCsv(path.join(dataDir, 'youtube', f))) text.set(r.id, Object.values(r.fields).join('\n'));
    if (!hasArrivalOrder(path.join(dataDir, 'youtube', f))) undated.add(`video: ${path.basename(f, '.csv').replace(/^Youtube\d+-/, '')}`);
  }
  const out: CustomerPoint[] = [];
  for (const file of readdirSync(dumpDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const d = JSON.parse(readFileSync(path.join(dumpDir, file), 'utf8')) as SiteDump;
    if (!d.site.startsWith('video') || undated.has(d.site)) continue;
    const items = d.items.map((x) => {
      if (x.id === undefined) throw new Error(`${file}: a dump without record ids (rerun lodo --curve --curve-dump)`);
      return {
        indices: Int32Array.from(x.i),
        values: Float32Array.from(x.v),
        globalLogit: x.z,
        label: x.y,
        selfPromotion: x.y === 1 && isSelfPromotion(text.get(x.id) ?? ''),
      };
    });
    out.push(...customerCurve(d.site, items, d.threshold, settings));
  }
  return out;
}

/** A video the global model never saw, as `unseenVideo` gives it. */
export interface UnseenVideo {
  readonly site: string;
  /** The global model's threshold (a probability) and its calibrated log-odds for any extracted submission. */
  readonly threshold: number;
  readonly globalLogit: (x: { readonly indices: Int32Array; readonly values: Float32Array }) => number;
  readonly extractor: FeatureExtractor;
  /** The video's comments in date order, and the same as examples with the global log-odds. */
  readonly records: readonly LabelledRecord[];
  readonly items: readonly CustomerItem[];
}

/**
 * One video as a customer's new site: NB-LR trained on everything else in `dataDir` with out-of-fold calibration and
 * threshold (as `lodo --curve` does, so the items are those its dump holds), and the video's comments in date order
 * with that model's calibrated log-odds. Costs `folds + 1` trainings.
 */
export function unseenVideo(
  dataDir: string,
  video: string,
  opts: { readonly seed?: number; readonly folds?: number; readonly targetFpr?: number } = {},
): UnseenVideo {
  const seed = opts.seed ?? 42;
  const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);
  const unique = splitRecords(loadDataDir(dataDir).records, { seed, validation: 0, test: 0 }).train;
  const site = protocolSites(unique, new Map()).find((s) => s.kind === 'video' && s.name.toLowerCase().includes(video.toLowerCase()));
  if (!site) throw new Error(`no video named ${video} in ${dataDir}`);
  const held = unique.filter(site.has);
  const pool = unique.filter((r) => !site.has(r)).map((r) => toExample(extractor, r));
  const s = { dimension: extractor.dimension, seed, nb: DEFAULT_NB_SCALING };
  const fit = fitPool(pool, [NBLR], s, opts.folds ?? 5, () => {});
  const c = calibrate(fit, [], opts.targetFpr ?? 0.01).get(NBLR.name) as Calibrated;
  const model = fit.models.get(NBLR.name) as Logits;
  const globalLogit = (x: { readonly indices: Int32Array; readonly values: Float32Array }) => c.platt.a * model.logit(x) + c.platt.b;
  const records = arrivalOrder(held, dataDir).map((i) => held[i] as LabelledRecord);
  const items = records.map((r) => {
    const x = toExample(extractor, r);
    return {
      indices: x.indices,
      values: x.values,
      globalLogit: globalLogit(x),
      label: x.label,
      selfPromotion: x.label === 1 && isSelfPromotion(Object.values(r.fields).join('\n')),
    };
  });
  return { site: site.name, threshold: c.threshold, globalLogit, extractor, records, items };
}
