import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listModelVersions, loadModelFolder } from '../core/classifier/load.ts';
import { ModelLoadError } from '../core/classifier/errors.ts';
import type { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import type { BinaryMetrics } from '../core/classifier/manifest.ts';
import { runCommand } from '../core/cli/run.ts';
import { clean, parseFlags, UsageError } from '../core/cli/usage.ts';
import { DataError, latestLabels, readLabelledFile } from '../training/data/loaders.ts';
import { evaluate } from '../training/model/metrics.ts';

const HELP = `npm run evaluate -- --model models/<version> --data <file> [--data <file> ...] [--json] [--errors] [--jsonl <out>]
Scores labelled files (JSON Lines of records or form records (.jsonl, .ndjson), the YouTube CSV format (.csv),
the SMS TSV format (.tsv, .txt); a file with no such extension, like the UCI's SMSSpamCollection, by its first
line) with a model and prints precision, recall, F1, false-positive rate, ROC-AUC and
calibration error per source (a file's name is its source); n/a where a figure is undefined (no spam, no
legitimate records, nothing flagged), then each source's confusion counts. --json prints the same figures as JSON.
--errors lists every record the model gets wrong: its id, label, spam probability and the model's reasoning.
--jsonl <out> writes one JSON line per record (id, source, label, verdict, spam probability, right or wrong,
reasoning) to <out>. No service is needed: the model is loaded from its folder.`;

function parseCommandLine(argv: string[]) {
  return parseFlags(argv, {
    model: { type: 'string' },
    data: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
    errors: { type: 'boolean', default: false },
    jsonl: { type: 'string' },
  });
}

/** A model folder by its path, whatever its name; a folder of versions is named as such, with the newest to pass. */
async function loadModel(arg: string): Promise<LinearClassifier> {
  const dir = path.resolve(arg);
  if (existsSync(path.join(dir, 'manifest.json'))) return loadModelFolder(dir);
  if (!existsSync(dir)) {
    const siblings = await listModelVersions(path.dirname(dir)).catch(() => []);
    throw new ModelLoadError(
      `model folder not found: ${dir}${siblings.length ? ` (${path.dirname(arg)} has: ${siblings.join(', ')})` : ''}`,
    );
  }
  if (!statSync(dir).isDirectory()) throw new ModelLoadError(`${dir} is a file; --model takes a model folder`);
  const newest = (await listModelVersions(dir)).at(-1);
  if (newest)
    throw new ModelLoadError(`${arg} is a folder of model versions; pass one, e.g. --model ${path.join(arg, newest)} (the newest)`);
  throw new ModelLoadError(`${dir} is not a model folder (no manifest.json)`);
}

/** A ratio is undefined when its denominator is empty; shown as n/a rather than a 0 that reads as a result. */
function cell(defined: boolean, text: string, width: number): string {
  return (defined ? text : 'n/a').padEnd(width);
}

function row(name: string, m: BinaryMetrics): string {
  const hasSpam = m.spam > 0;
  return [
    name.padEnd(16),
    String(m.n).padStart(5),
    String(m.spam).padStart(5),
    ' ' + cell(m.tp + m.fp > 0, m.precision.toFixed(3), 10),
    cell(hasSpam, m.recall.toFixed(3), 7),
    cell(hasSpam, m.f1.toFixed(3), 6),
    (m.legitimate > 0 ? `${(100 * m.fpr).toFixed(2)}%` : 'n/a').padStart(7),
    ' ' + (m.rocAuc?.toFixed(4) ?? 'n/a'),
  ].join('  ');
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseCommandLine(argv);
  if (!values.model || !values.data?.length) throw new UsageError(`${values.model ? '--data' : '--model'} is required`);
  const classifier = await loadModel(values.model);
  const perFile = values.data.map((file) => {
    const loaded = readLabelledFile(path.resolve(file));
    // Scored, an empty file would print a row of zeros that reads like a result.
    if (loaded.records.length === 0) throw new DataError(`no labelled records in ${file}`);
    return loaded;
  });
  // An exported labels file holds a line per relabel: score each submission once, by its newest label, as training
  // does, leaving out labels withdrawn by an undo after the export (in whichever of the files the withdrawal is).
  const records = latestLabels(
    perFile.flatMap((f) => f.records),
    perFile.flatMap((f) => f.withdrawals),
  );
  const verdicts = records.map((r) => ({ record: r, verdict: classifier.classify(r.fields) }));
  const scored = verdicts.map(({ record, verdict }) => ({
    source: record.source,
    label: (record.label === 'spam' ? 1 : 0) as 0 | 1,
    p: verdict.spamProbability,
  }));
  const result = evaluate(scored, classifier.manifest.threshold);
  if (values.jsonl !== undefined) {
    const lines = verdicts.map(({ record, verdict }) =>
      JSON.stringify({
        id: record.id,
        source: record.source,
        label: record.label,
        status: verdict.status,
        spamProbability: verdict.spamProbability,
        correct: verdict.status === record.label,
        reasoning: verdict.reasoning,
      }),
    );
    writeFileSync(path.resolve(values.jsonl), lines.length ? `${lines.join('\n')}\n` : '');
  }
  if (values.json) {
    console.log(JSON.stringify({ model: classifier.modelVersion, threshold: classifier.manifest.threshold, ...result }, null, 2));
    return;
  }
  console.log(`model ${classifier.modelVersion}, threshold ${classifier.manifest.threshold.toFixed(4)}, ECE ${result.ece.toFixed(4)}`);
  console.log('source                n   spam   precision   recall   F1          FPR   ROC-AUC');
  for (const [name, m] of [['all', result.overall], ...Object.entries(result.bySource)] as const) console.log(row(name, m));
  console.log('\nconfusion         spam caught (TP)   spam missed (FN)   legitimate flagged (FP)   legitimate passed (TN)');
  for (const [name, m] of [['all', result.overall], ...Object.entries(result.bySource)] as const)
    console.log(
      `${name.padEnd(16)}  ${String(m.tp).padStart(16)}   ${String(m.fn).padStart(16)}   ${String(m.fp).padStart(23)}   ${String(m.tn).padStart(22)}`,
    );
  if (values.jsonl !== undefined) console.log(`\nwrote ${verdicts.length} records to ${values.jsonl}`);
  if (!values.errors) return;
  const wrong = verdicts.filter(({ record, verdict }) => verdict.status !== record.label);
  console.log(`\n${wrong.length} of ${verdicts.length} records wrong (threshold ${classifier.manifest.threshold.toFixed(4)}):`);
  for (const { record, verdict } of wrong)
    // clean(): the reasoning quotes the record's words, which must not drive the terminal.
    console.log(
      `  ${clean(record.id)} [${clean(record.source)}] labelled ${record.label}, scored ${verdict.status} at p(spam) ${verdict.spamProbability.toFixed(3)}: ${clean(verdict.reasoning)}`,
    );
}

runCommand({
  name: 'evaluate',
  usage: HELP,
  main: run,
  exitCodeOf: (e) => (e instanceof ModelLoadError || e instanceof DataError ? 2 : undefined),
});
