// Order statistics shared by the load runs and the in-process meters. A module of its own so a meter child can
// import them without loading autocannon.

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? (s[(n - 1) / 2] as number) : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** A geometric mean of ratios with its 95% interval. */
export interface Interval {
  readonly mean: number;
  readonly low: number;
  readonly high: number;
  readonly n: number;
}

// Student's t, 0.975 quantile, for 1-30 degrees of freedom; 1.96 beyond.
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * The geometric mean of per-round ratios and its 95% t-interval (computed on their logarithms, so A/B and B/A give
 * reciprocal intervals). Rounds are independent readings of the same ratio on a host whose speed moves.
 */
export function meanInterval(ratios: readonly number[]): Interval {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const m = logs.reduce((a, x) => a + x, 0) / n;
  if (n < 2) return { mean: Math.exp(m), low: NaN, high: NaN, n };
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  const half = (T975[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { mean: Math.exp(m), low: Math.exp(m - half), high: Math.exp(m + half), n };
}
