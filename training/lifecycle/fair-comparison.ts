import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import { CommandError } from '../../core/cli/usage.ts';
import { holdoutSets } from '../data/holdout.ts';
import type { LabelledRecord } from '../data/record.ts';
import { compareModels, renderComparison, type Comparison } from '../model/compare.ts';
import { leaveOutTrained, trainingSetOf } from './trained-on.ts';

/**
 * Below this many records, F1 and false-positive rates move by whole points from one record; the comparison is
 * printed with a warning.
 */
export const MIN_COMPARISON_RECORDS = 200;
/**
 * Below this many records on which exactly one model is right, McNemar's exact test cannot tell much: with 5 or
 * fewer it cannot reach p < 0.05 at all, and with under 10 only an all-one-way split does.
 */
export const MIN_DISAGREEMENTS = 10;

/** A comparison that cannot be fair: a model's training data is unknown, or no record is left. Exit 1. */
export class ComparisonError extends CommandError {
  override name = 'ComparisonError';
}

export interface FairComparisonOptions {
  readonly current: { readonly model: LinearClassifier; readonly dir: string };
  readonly candidate: { readonly model: LinearClassifier; readonly dir: string };
  readonly records: readonly LabelledRecord[];
  /** What the records are, for the header line ("the test split of data (seed 42)"). */
  readonly what: string;
  /** Where a model without a trained-on list has its training data rebuilt from. */
  readonly dataDir: string;
  /** Files the user chose (not a split): a model whose training data is unknown is warned about instead of refused. */
  readonly givenFiles: boolean;
  /** training/holdout: each file compared on its own after the split; none when undefined. */
  readonly holdoutDir?: string;
}

export interface FairComparison {
  readonly lines: string[];
  readonly comparison: Comparison;
  /** The version right more often when McNemar's test says the difference is real (p < 0.05); null when it does not. */
  readonly better: string | null;
}

/**
 * Both models on the records neither trained on (by each one's trained-on list, or its rebuilt split), with how many
 * that left and a loud warning when too few to tell; then each held-out file the same way.
 */
export function fairComparison(o: FairComparisonOptions): FairComparison {
  const a = o.current.model.modelVersion;
  const b = o.candidate.model.modelVersion;
  const lines: string[] = [];
  const known: { version: string; texts: ReadonlySet<string> }[] = [];
  for (const { model, dir } of [o.current, o.candidate]) {
    const set = trainingSetOf(dir, model.manifest, o.dataDir);
    if (set.known) {
      known.push({ version: model.modelVersion, texts: set.texts });
      continue;
    }
    const why = `cannot tell which records ${model.modelVersion} trained on: ${set.reason}`;
    if (!o.givenFiles)
      throw new ComparisonError(
        `${why}. Comparing on a split would score it on its own training records; restore its data files, or compare on files it never saw with --data`,
      );
    lines.push(`WARNING: ${why}; these files are compared whole, so its figures are too good if it trained on any of them`);
  }
  const untrained = leaveOutTrained(o.records, known);
  const left = untrained.records.length;
  const trainedBy = [...untrained.trainedBy].map(([v, n]) => `${n} were in ${v}'s training data`).join(', ');
  lines.unshift(
    `${a} → ${b} on ${left} records of ${o.what} that neither model trained on (of ${untrained.of}${trainedBy ? `: ${trainedBy}` : ''})`,
  );
  if (left === 0) throw new ComparisonError(`${lines[0]}: nothing to compare on`);
  const comparison = compareModels(o.current.model, o.candidate.model, untrained.records);
  lines.push(...renderComparison(comparison));
  const disagreements = comparison.paired.fixed.length + comparison.paired.broken.length;
  const few = [
    ...(left < MIN_COMPARISON_RECORDS
      ? [`only ${left} records (under ${MIN_COMPARISON_RECORDS}, one record moves F1 and FPR by whole points)`]
      : []),
    ...(disagreements < MIN_DISAGREEMENTS
      ? [`only ${disagreements} on which exactly one model is right (McNemar's test needs ${MIN_DISAGREEMENTS} or more to say much)`]
      : []),
  ];
  if (few.length > 0) lines.push(`WARNING: too few to tell the models apart: ${few.join('; ')}`);
  const better = comparison.pValue < 0.05 ? (comparison.paired.fixed.length > comparison.paired.broken.length ? b : a) : null;
  lines.push(`better on these records: ${better ?? `neither (p = ${formatP(comparison.pValue)}, within chance)`}`);
  if (o.holdoutDir !== undefined) lines.push(...holdoutLines(o, known));
  return { lines, comparison, better };
}

function holdoutLines(o: FairComparisonOptions, known: { version: string; texts: ReadonlySet<string> }[]): string[] {
  const sets = holdoutSets(o.holdoutDir as string);
  if (sets.size === 0) return [];
  const lines = [
    `held-out sets (${o.holdoutDir}), never trained on:`,
    `  ${'file'.padEnd(22)} records   F1 → F1          FPR → FPR        fixed broken  p`,
  ];
  for (const [file, records] of sets) {
    const untrained = leaveOutTrained(records, known);
    if (untrained.records.length === 0) continue;
    const c = compareModels(o.current.model, o.candidate.model, untrained.records);
    const x = c.current.evaluation.overall;
    const y = c.candidate.evaluation.overall;
    const pct = (v: number) => `${(100 * v).toFixed(2)}%`;
    const skipped = untrained.of - untrained.records.length;
    lines.push(
      `  ${file.padEnd(22)} ${String(untrained.records.length).padStart(7)}   ${x.f1.toFixed(3)} → ${y.f1.toFixed(3)}   ${pct(x.fpr).padStart(6)} → ${pct(y.fpr).padEnd(7)} ${String(c.paired.fixed.length).padStart(5)} ${String(c.paired.broken.length).padStart(6)}  ${formatP(c.pValue)}${skipped ? `  (${skipped} left out: a model trained on them)` : ''}`,
    );
  }
  return lines;
}

function formatP(p: number): string {
  return p < 0.0001 ? p.toExponential(1) : p.toFixed(4);
}
