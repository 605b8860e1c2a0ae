/** The logistic function, in the form that never computes exp of a large positive number (no Infinity / Infinity). */
export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** The inverse of `sigmoid`: the log-odds of probability `p`. */
export function logit(p: number): number {
  return Math.log(p / (1 - p));
}
