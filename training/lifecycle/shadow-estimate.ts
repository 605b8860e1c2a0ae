import type { ShadowPair } from '../../core/classifier/shadow-store.ts';

/** One labelled submission both models scored, with why it was queued (absent for pairs stored before that was kept). */
export interface LabelledPair {
  readonly pair: ShadowPair;
  readonly label: 'spam' | 'legitimate';
}

/** A ratio estimated over the traffic, with its 95% interval and the labels it rests on. */
export interface Estimate {
  readonly value: number;
  readonly low: number;
  readonly high: number;
  /** Labels in the ratio's denominator (e.g. legitimate ones for the false-positive rate). */
  readonly labels: number;
}

export interface RoleFigures {
  readonly precision: Estimate | null;
  readonly recall: Estimate | null;
  readonly fpr: Estimate | null;
}

const Z = 1.959964;

/** Wilson's score interval for a proportion `p` out of `n` (n may be an effective, non-integer size). */
export function wilson(p: number, n: number): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Σw·y / Σw·x over items each queued with probability π (weight w = 1/π): the Horvitz-Thompson ratio, an estimate of
 * the ratio over all scored traffic. Its variance is the linearised one for independent (Poisson) sampling, Σ(1-π)/π²
 * (y - R·x)² / X²; the interval is Wilson's at the effective size R(1-R)/variance, or, where that is undefined (a
 * ratio of 0 or 1), at Kish's effective size (Σw)²/Σw². With every π = 1 this is the plain Wilson interval.
 */
export function weightedRatio(items: ReadonlyArray<{ x: boolean; y: boolean; probability: number }>): Estimate | null {
  let X = 0;
  let Y = 0;
  let w2 = 0;
  let labels = 0;
  for (const i of items) {
    if (!i.x) continue;
    const w = 1 / i.probability;
    X += w;
    w2 += w * w;
    labels++;
    if (i.y) Y += w;
  }
  if (labels === 0) return null;
  const R = Y / X;
  let variance = 0;
  for (const i of items) {
    if (!i.x) continue;
    const d = (i.y ? 1 : 0) - R;
    variance += ((1 - i.probability) / (i.probability * i.probability)) * d * d;
  }
  variance /= X * X;
  const kish = (X * X) / w2;
  const n = R > 0 && R < 1 && variance > 0 ? Math.min((R * (1 - R)) / variance, kish * 1e6) : kish;
  return { value: R, ...wilson(R, n), labels };
}

/** Precision, recall and false-positive rate of one model's verdicts, each label weighted by 1 / its chance of being queued. */
export function roleFigures(items: readonly LabelledPair[], role: 'active' | 'shadow'): RoleFigures {
  const rows = items.map(({ pair, label }) => ({
    flagged: pair[role].status === 'spam',
    spam: label === 'spam',
    probability: pair.queued?.probability ?? 1,
  }));
  return {
    precision: weightedRatio(rows.map((r) => ({ x: r.flagged, y: r.spam, probability: r.probability }))),
    recall: weightedRatio(rows.map((r) => ({ x: r.spam, y: r.flagged, probability: r.probability }))),
    fpr: weightedRatio(rows.map((r) => ({ x: !r.spam, y: r.flagged, probability: r.probability }))),
  };
}

const REASONS = ['spam', 'low-confidence', 'disagreement', 'sample'] as const;

/**
 * The report's lines on labels: the estimate over the traffic (needs every label's reason), the random sample's own
 * figures, and the labels queued for being spam, uncertain or disputed counted apart.
 */
export function labelledLines(items: readonly LabelledPair[]): string[] {
  if (items.length === 0) return ['    no labelled submissions yet (label items in /review, then `npm run labels:export`)'];
  const byReason = new Map<string, LabelledPair[]>();
  for (const i of items) {
    const k = i.pair.queued?.reason ?? 'unrecorded';
    byReason.set(k, [...(byReason.get(k) ?? []), i]);
  }
  const count = (k: string) => byReason.get(k)?.length ?? 0;
  const lines = [
    `    ${items.length} labelled submissions, by why they were queued: ${[...REASONS, 'unrecorded']
      .filter((k) => count(k) > 0)
      .map((k) => `${k === 'unrecorded' ? 'reason not recorded (queued before it was)' : k} ${count(k)}`)
      .join(', ')}`,
  ];
  const known = items.filter((i) => i.pair.queued !== undefined);
  const sample = byReason.get('sample') ?? [];
  const versions = { active: items[0]?.pair.active.version ?? '', shadow: items[0]?.pair.shadow.version ?? '' };
  if (known.length > 0) {
    lines.push(
      `    estimated on all scored traffic (each label weighted by 1 / its chance of being queued; the random sample is ${sample.length} labels${sample.length < 30 ? ', too few for a narrow interval' : ''}), 95% intervals:`,
    );
    lines.push(...table(known, versions));
    if (count('unrecorded') > 0) lines.push(`    (${count('unrecorded')} labels without a recorded reason are left out of the estimate)`);
  } else {
    lines.push(
      '    no label records why it was queued, so no estimate over the traffic can be made (labels of items queued from now on will)',
    );
  }
  if (sample.length > 0) {
    lines.push(
      `    the random sample alone (${sample.length}: confident legitimate verdicts of the active model, so its FPR there is 0 by construction):`,
    );
    lines.push(...table(sample, versions));
  }
  for (const reason of ['spam', 'low-confidence', 'disagreement'] as const) {
    const group = byReason.get(reason) ?? [];
    if (group.length === 0) continue;
    const spam = group.filter((g) => g.label === 'spam').length;
    const agree = (role: 'active' | 'shadow') => group.filter((g) => g.pair[role].status === g.label).length;
    lines.push(
      `    queued as ${reason} (${group.length}, not a sample of the traffic): ${spam} labelled spam; right: active ${agree('active')}, shadow ${agree('shadow')}`,
    );
  }
  return lines;
}

function table(items: readonly LabelledPair[], versions: { active: string; shadow: string }): string[] {
  const cell = (e: Estimate | null) => (e === null ? 'n/a' : `${pct(e.value)} [${pct(e.low)}, ${pct(e.high)}]`).padEnd(26);
  const lines = [`      ${''.padEnd(30)} ${'precision'.padEnd(26)} ${'recall'.padEnd(26)} FPR`];
  for (const role of ['active', 'shadow'] as const) {
    const f = roleFigures(items, role);
    lines.push(`      ${`${role} ${versions[role]}`.padEnd(30)} ${cell(f.precision)} ${cell(f.recall)} ${cell(f.fpr).trimEnd()}`);
  }
  return lines;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
