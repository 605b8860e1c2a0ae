import { sigmoid } from '../../core/classifier/sigmoid.ts';

/**
 * A per-account correction on top of a frozen global model: the account's log-odds are the global model's
 * calibrated log-odds plus a bias and a sparse weight per hashed feature, fitted on that account's labels alone
 * and pulled towards zero (L2), so a few labels move the account's verdicts a little and many labels more. It reads
 * nothing but the account's own examples, so it cannot carry one account's data into another's verdicts.
 */
export interface AccountExample {
  readonly indices: Int32Array;
  readonly values: Float32Array;
  /** The global model's calibrated log-odds for this submission (frozen: the correction never changes it). */
  readonly globalLogit: number;
  readonly label: 0 | 1;
  /** A label's weight (1 unless a caller weighs some labels more). */
  readonly weight?: number;
}

export interface CorrectionOptions {
  /**
   * L2 pull of the feature weights towards zero (on the loss averaged over the labels): larger needs more labels to
   * move. 1 was the one setting that did no harm on the learning curve of docs/model.md (weaker pulls flagged more
   * genuine mail); feature values are small (about 0.1 each in a typical message), so this is a strong pull.
   */
  readonly l2: number;
  /**
   * L2 pull of the bias, much harder than any weight's: the bias moves every submission of the account, and a run of
   * spam among an account's first labels must not flag its genuine mail (a weak pull did: measured in docs/model.md).
   */
  readonly biasL2: number;
  readonly iterations: number;
  readonly learningRate: number;
}

export const DEFAULT_CORRECTION: CorrectionOptions = Object.freeze({ l2: 1, biasL2: 1, iterations: 300, learningRate: 0.1 });

/** Buckets in ascending order with their weights: only buckets the account's labels used can be non-zero. */
export interface AccountCorrection {
  readonly bias: number;
  readonly indices: Int32Array;
  readonly weights: Float32Array;
  /** How many labels it was fitted on. */
  readonly labels: number;
  /**
   * How far above the model's threshold the account's verdicts are decided, in calibrated log-odds (0 or absent: at
   * the model's): subtracted from the account's log-odds, so its probability and the model's threshold still agree.
   */
  readonly thresholdShift?: number;
}

export const NO_CORRECTION: AccountCorrection = Object.freeze({
  bias: 0,
  indices: new Int32Array(0),
  weights: new Float32Array(0),
  labels: 0,
});

/**
 * Fits the correction by full-batch Adam on the weighted logistic loss (averaged over the label weight) plus
 * l2/2 * |w|^2 + biasL2/2 * b^2. Deterministic: same examples, same correction.
 */
export function fitAccountCorrection(examples: readonly AccountExample[], opts: CorrectionOptions = DEFAULT_CORRECTION): AccountCorrection {
  if (examples.length === 0) return NO_CORRECTION;
  const buckets = [...new Set(examples.flatMap((e) => [...e.indices]))].sort((a, b) => a - b);
  const slot = new Map(buckets.map((b, i) => [b, i]));
  const local = examples.map((e) => Int32Array.from(e.indices, (i) => slot.get(i) as number));
  const n = buckets.length;
  const w = new Float64Array(n + 1); // the bias last
  const m = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const g = new Float64Array(n + 1);
  const total = examples.reduce((s, e) => s + (e.weight ?? 1), 0);
  for (let t = 1; t <= opts.iterations; t++) {
    g.fill(0);
    examples.forEach((e, k) => {
      const idx = local[k] as Int32Array;
      let z = e.globalLogit + (w[n] as number);
      for (let j = 0; j < idx.length; j++) z += (w[idx[j] as number] as number) * (e.values[j] as number);
      const d = ((sigmoid(z) - e.label) * (e.weight ?? 1)) / total;
      g[n]! += d;
      for (let j = 0; j < idx.length; j++) g[idx[j] as number]! += d * (e.values[j] as number);
    });
    for (let i = 0; i < n; i++) g[i]! += opts.l2 * (w[i] as number);
    g[n]! += opts.biasL2 * (w[n] as number);
    const c1 = 1 - 0.9 ** t;
    const c2 = 1 - 0.999 ** t;
    for (let i = 0; i <= n; i++) {
      m[i] = 0.9 * (m[i] as number) + 0.1 * (g[i] as number);
      v[i] = 0.999 * (v[i] as number) + 0.001 * (g[i] as number) ** 2;
      w[i]! -= (opts.learningRate * ((m[i] as number) / c1)) / (Math.sqrt((v[i] as number) / c2) + 1e-8);
    }
  }
  return { bias: w[n] as number, indices: Int32Array.from(buckets), weights: Float32Array.from(w.subarray(0, n)), labels: examples.length };
}

/**
 * What the correction adds to one submission's calibrated log-odds, its threshold shift taken off (binary search per
 * feature: the table is sparse).
 */
export function correctionLogit(
  c: AccountCorrection,
  x: { readonly indices: Int32Array; readonly values: Float32Array; readonly count?: number },
): number {
  let z = c.bias - (c.thresholdShift ?? 0);
  const n = x.count ?? x.indices.length;
  for (let j = 0; j < n; j++) {
    const at = findBucket(c.indices, x.indices[j] as number);
    if (at >= 0) z += (c.weights[at] as number) * (x.values[j] as number);
  }
  return z;
}

function findBucket(sorted: Int32Array, bucket: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = sorted[mid] as number;
    if (b === bucket) return mid;
    if (b < bucket) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
