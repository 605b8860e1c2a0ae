import { sigmoid } from '../../core/classifier/sigmoid.ts';

/** Platt scaling: p = sigmoid(a * logit + b), fitted by Newton's method on held-out logits. */
export interface Platt {
  readonly a: number;
  readonly b: number;
}

export function fitPlatt(logits: readonly number[], labels: readonly (0 | 1)[]): Platt {
  // Platt's smoothed targets keep a perfectly separated validation set from driving a to infinity.
  const pos = labels.filter((l) => l === 1).length;
  const neg = labels.length - pos;
  const hi = (pos + 1) / (pos + 2);
  const lo = 1 / (neg + 2);
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 100; iter++) {
    let g1 = 0,
      g2 = 0,
      h11 = 1e-9,
      h12 = 0,
      h22 = 1e-9;
    for (let i = 0; i < logits.length; i++) {
      const z = logits[i] as number;
      const t = labels[i] === 1 ? hi : lo;
      const p = sigmoid(a * z + b);
      const d = p - t;
      const w = p * (1 - p);
      g1 += d * z;
      g2 += d;
      h11 += w * z * z;
      h12 += w * z;
      h22 += w;
    }
    const det = h11 * h22 - h12 * h12;
    if (Math.abs(det) < 1e-12) break;
    const da = (h22 * g1 - h12 * g2) / det;
    const db = (h11 * g2 - h12 * g1) / det;
    // Backtracking (Lin, Lin & Weng's Platt): a full Newton step can overshoot on sharply separated logits,
    // send a to a huge or negative value and flip the ranking.
    const before = plattLoss(logits, labels, hi, lo, a, b);
    let step = 1;
    while (step > 1e-10 && plattLoss(logits, labels, hi, lo, a - step * da, b - step * db) > before + 1e-12) step /= 2;
    if (step <= 1e-10) break;
    a -= step * da;
    b -= step * db;
    if (Math.abs(step * da) < 1e-9 && Math.abs(step * db) < 1e-9) break;
  }
  return { a, b };
}

/** Cross-entropy of the smoothed targets under sigmoid(a * z + b), computed without overflow. */
function plattLoss(logits: readonly number[], labels: readonly (0 | 1)[], hi: number, lo: number, a: number, b: number): number {
  let loss = 0;
  for (let i = 0; i < logits.length; i++) {
    const z = a * (logits[i] as number) + b;
    const t = labels[i] === 1 ? hi : lo;
    loss += t * softplus(-z) + (1 - t) * softplus(z);
  }
  return loss;
}

function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

/**
 * The lowest threshold on the calibrated probability whose false-positive rate on held-out
 * legitimate submissions stays within the target: catch as much spam as that allows.
 */
export function thresholdForFpr(probs: readonly number[], labels: readonly (0 | 1)[], targetFpr: number): number {
  const ham = probs.filter((_, i) => labels[i] === 0).sort((x, y) => y - x);
  if (ham.length === 0) return 0.5;
  const allowed = Math.floor(targetFpr * ham.length);
  // Spam is p >= threshold, so the threshold must sit just above the (allowed+1)-th highest ham score.
  const boundary = ham[allowed] as number;
  return Math.min(1, Math.max(0.5, nextUp(boundary)));
}

function nextUp(x: number): number {
  return x + Math.max(1e-9, Math.abs(x) * 1e-9);
}
