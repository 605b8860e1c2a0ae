import { FeatureExtractor } from '../../core/features/index.ts';
import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { binaryMetrics } from '../model/metrics.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import { correctionLogit, fitAccountCorrection, type AccountExample } from '../model/account-correction.ts';
import { pruned, type CorrectionSettings } from '../model/fit-account-corrections.ts';
import type { Site } from './account-sites.ts';

/** How many of a site's first labels a correction is fitted on, in the threshold measurement. */
export const THRESHOLD_STEPS = [5, 10, 20, 30, 50, 75, 100] as const;

/** A site's items with the frozen global model's calibrated log-odds, in the site's order. */
export function siteExamples(model: LinearClassifier, site: Site): AccountExample[] {
  const extractor = new FeatureExtractor(model.manifest.featureSettings);
  const { a, b } = model.manifest.calibration;
  return site.items.map((r) => {
    const x = extractor.extractCopy(r.fields);
    return { ...x, globalLogit: a * model.scorer.logit(x) + b, label: r.label === 'spam' ? 1 : 0 };
  });
}

export interface CurvePoint {
  readonly labelled: number;
  readonly global: BinaryMetrics;
  readonly corrected: BinaryMetrics;
}

/** The first n items fit a correction; every later item is scored with and without it, at the model's threshold. */
export function correctionCurve(
  items: readonly AccountExample[],
  threshold: number,
  opts: CorrectionSettings,
  steps: readonly number[] = THRESHOLD_STEPS,
  minRest = 20,
): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (const n of steps) {
    if (items.length - n < minRest) break;
    const c = pruned(fitAccountCorrection(items.slice(0, n), opts), opts.minWeight);
    const rest = items.slice(n);
    const score = (z: (x: AccountExample) => number) =>
      binaryMetrics(
        rest.map((x) => ({ source: 'site', label: x.label, p: sigmoid(z(x)) })),
        threshold,
      );
    out.push({ labelled: n, global: score((x) => x.globalLogit), corrected: score((x) => x.globalLogit + correctionLogit(c, x)) });
  }
  return out;
}
