import type { BinaryMetrics, Evaluation } from '../../core/classifier/manifest.ts';

export interface Scored {
  readonly source: string;
  readonly label: 0 | 1;
  /** Calibrated spam probability. */
  readonly p: number;
}

export function binaryMetrics(items: readonly Scored[], threshold: number): BinaryMetrics {
  let tp = 0,
    fp = 0,
    tn = 0,
    fn = 0;
  for (const s of items) {
    const spam = s.p >= threshold;
    if (s.label === 1) {
      if (spam) tp++;
      else fn++;
    } else if (spam) fp++;
    else tn++;
  }
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return {
    n: items.length,
    spam: tp + fn,
    legitimate: tn + fp,
    tp,
    fp,
    tn,
    fn,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    fpr: fp + tn ? fp / (fp + tn) : 0,
    accuracy: items.length ? (tp + tn) / items.length : 0,
    rocAuc: rocAuc(items),
  };
}

/** Area under the ROC curve by the rank statistic (ties count half); null with one class only. */
export function rocAuc(items: readonly Scored[]): number | null {
  const sorted = items.map((s) => [s.p, s.label] as const).sort((a, b) => a[0] - b[0]);
  let pos = 0,
    neg = 0,
    rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]![0] === sorted[i]![0]) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]![1] === 1) rankSum += avgRank;
    i = j;
  }
  for (const [, l] of sorted) {
    if (l === 1) pos++;
    else neg++;
  }
  if (!pos || !neg) return null;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** Expected calibration error over 10 equal-width bins of the spam probability. */
export function expectedCalibrationError(items: readonly Scored[], bins = 10): number {
  const count = new Array<number>(bins).fill(0);
  const conf = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  for (const s of items) {
    const b = Math.min(bins - 1, Math.floor(s.p * bins));
    count[b]!++;
    conf[b]! += s.p;
    hits[b]! += s.label;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) if (count[b]) ece += Math.abs(conf[b]! - hits[b]!) * (1 / items.length);
  return ece;
}

export function evaluate(items: readonly Scored[], threshold: number): Evaluation {
  const sources = [...new Set(items.map((s) => s.source))].sort();
  return {
    overall: binaryMetrics(items, threshold),
    bySource: Object.fromEntries(
      sources.map((src) => [
        src,
        binaryMetrics(
          items.filter((s) => s.source === src),
          threshold,
        ),
      ]),
    ),
    ece: expectedCalibrationError(items),
  };
}
