import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import type { Evaluation } from '../../core/classifier/manifest.ts';
import type { LabelledRecord } from '../data/record.ts';
import { mcnemarExact } from './mcnemar.ts';
import { evaluate } from './metrics.ts';

/** Both models on the same records, each at its own threshold, and record by record. */
export interface Comparison {
  readonly current: { readonly version: string; readonly evaluation: Evaluation };
  readonly candidate: { readonly version: string; readonly evaluation: Evaluation };
  readonly paired: {
    readonly n: number;
    readonly bothRight: number;
    readonly bothWrong: number;
    /** Records the current model gets wrong and the candidate right. */
    readonly fixed: readonly string[];
    /** Records the current model gets right and the candidate wrong. */
    readonly broken: readonly string[];
  };
  /** McNemar's exact two-sided p-value on fixed vs broken. */
  readonly pValue: number;
  /** Sources (and "all") on which the candidate has a lower F1 or a higher false-positive rate. */
  readonly worseOn: readonly string[];
}

export function compareModels(current: LinearClassifier, candidate: LinearClassifier, records: readonly LabelledRecord[]): Comparison {
  const fixed: string[] = [];
  const broken: string[] = [];
  let bothRight = 0;
  let bothWrong = 0;
  const scoredA = [];
  const scoredB = [];
  for (const r of records) {
    const label = r.label === 'spam' ? 1 : 0;
    const pa = current.spamProbability(r.fields);
    const pb = candidate.spamProbability(r.fields);
    scoredA.push({ source: r.source, label: label as 0 | 1, p: pa });
    scoredB.push({ source: r.source, label: label as 0 | 1, p: pb });
    const rightA = (pa >= current.manifest.threshold ? 1 : 0) === label;
    const rightB = (pb >= candidate.manifest.threshold ? 1 : 0) === label;
    if (rightA && rightB) bothRight++;
    else if (!rightA && !rightB) bothWrong++;
    else if (rightB) fixed.push(r.id);
    else broken.push(r.id);
  }
  const a = evaluate(scoredA, current.manifest.threshold);
  const b = evaluate(scoredB, candidate.manifest.threshold);
  const worseOn: string[] = [];
  for (const [name, mb] of [['all', b.overall], ...Object.entries(b.bySource)] as const) {
    const ma = name === 'all' ? a.overall : a.bySource[name];
    if (ma !== undefined && (mb.f1 < ma.f1 || mb.fpr > ma.fpr)) worseOn.push(name);
  }
  return {
    current: { version: current.modelVersion, evaluation: a },
    candidate: { version: candidate.modelVersion, evaluation: b },
    paired: { n: records.length, bothRight, bothWrong, fixed, broken },
    pValue: mcnemarExact(fixed.length, broken.length),
    worseOn,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

/** The side-by-side table, the paired counts with the test, and a warning line when the candidate is worse anywhere. */
export function renderComparison(c: Comparison, examples = 5): string[] {
  const a = c.current;
  const b = c.candidate;
  const lines = [
    `${'records'.padEnd(14)}  ${'F1'.padStart(7)} ${'→'} ${'F1'.padEnd(7)}  ${'FPR'.padStart(7)} → FPR      (${a.version} → ${b.version})`,
  ];
  for (const [name, mb] of [['all', b.evaluation.overall], ...Object.entries(b.evaluation.bySource)] as const) {
    const ma = name === 'all' ? a.evaluation.overall : a.evaluation.bySource[name];
    if (ma === undefined) continue;
    const mark = c.worseOn.includes(name) ? '  worse' : '';
    lines.push(
      `  ${`${name} (${mb.n})`.padEnd(14)}  ${ma.f1.toFixed(3).padStart(5)} → ${mb.f1.toFixed(3)}    ${pct(ma.fpr).padStart(6)} → ${pct(mb.fpr).padEnd(7)}${mark}`,
    );
  }
  const p = c.paired;
  const show = (ids: readonly string[]) =>
    ids.length ? `: ${ids.slice(0, examples).join(', ')}${ids.length > examples ? ', …' : ''}` : '';
  lines.push(`paired on ${p.n} records: both right ${p.bothRight}, both wrong ${p.bothWrong}`);
  lines.push(`  fixed by ${b.version}  ${p.fixed.length}${show(p.fixed)}`);
  lines.push(`  broken by ${b.version} ${p.broken.length}${show(p.broken)}`);
  const noise = c.pValue >= 0.05;
  lines.push(
    `McNemar exact test: p = ${c.pValue < 0.0001 ? c.pValue.toExponential(1) : c.pValue.toFixed(4)} (${noise ? 'the difference is within what chance gives' : `a real difference: ${p.fixed.length > p.broken.length ? b.version : a.version} is right more often`})`,
  );
  if (c.worseOn.length > 0)
    lines.push(`WARNING: ${b.version} is worse than ${a.version} on ${c.worseOn.join(', ')} (lower F1 or more false positives)`);
  return lines;
}
