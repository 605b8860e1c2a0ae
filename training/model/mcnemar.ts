/**
 * McNemar's exact test on paired outcomes: of the records exactly one model gets right, `fixed` are those only the
 * candidate gets right and `broken` those only the current model does. With no real difference each such record is
 * a coin toss; the two-sided binomial p-value says how often a split this uneven would happen by chance.
 */
export function mcnemarExact(fixed: number, broken: number): number {
  const n = fixed + broken;
  if (n === 0) return 1;
  const k = Math.min(fixed, broken);
  // Summed in log space: C(n, i) / 2^n under- and overflows for the thousands of records a test split holds.
  let logC = 0;
  let tail = 0;
  const log2n = n * Math.LN2;
  for (let i = 0; i <= k; i++) {
    tail += Math.exp(logC - log2n);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, 2 * tail);
}
