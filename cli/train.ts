import path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError } from '../core/cli/usage.ts';
import { DataError } from '../training/data/loaders.ts';
import { BACKENDS, BackendError, isBackendName, type BackendName } from '../training/model/backend.ts';
import { ModelExistsError } from '../training/model/export.ts';
import { comparisonWithActive, keepWhatServes } from '../training/lifecycle/compare-with-active.ts';
import { DEFAULT_HOLDOUT_DIR } from '../training/data/holdout.ts';
import {
  ACCOUNT_THRESHOLD_RULES,
  DEFAULT_CORRECTION_SETTINGS,
  type AccountThresholdRule,
} from '../training/model/fit-account-corrections.ts';
import { runTraining, DEFAULT_NB_SCALING, DEFAULT_SOURCE_WEIGHTS, type TrainingOptions } from '../training/pipeline.ts';

const HELP = `npm run train -- [--data data] [--out models] [--seed 42] [--training-seed <seed>] [--epochs 12] [--target-fpr 0.01]
                  [--batch-size 64] [--learning-rate 0.02] [--l2 1e-7] [--backend wasm|cpu|tensorflow]
                  [--nb-alpha 0.5] [--nb-mix 0.5] [--source-weights forms=6] [--holdout training/holdout]
                  [--account-threshold none|flags|mean|soft]
Trains on every labelled file under --data, exports models/<version>/ (model.json, weights.bin,
manifest.json, report.md, trained-on.txt) and prints the test metrics, then compares it with the model that serves
on the test split less every record that model trained on (saying how many records that left). A record's side
(train / validation / test) is a hash of its normalised text and the seed: adding data never moves a test record
into training. --training-seed (default --seed) changes only the training's folds and example order, on the same
split: what retraining alone moves. A data record whose text is in a --holdout file is never trained on. It does not change what serves: \`npm run models -- promote <version>\` does. --source-weights weighs each record by its source, or by
<source>:<label> when given (e.g. forms=6,forms:legitimate=9). --nb-mix 1 trains plain logistic regression
instead of NB-LR (naive-Bayes feature scaling). Without --backend: tensorflow when @tensorflow/tfjs-node
is installed, else wasm. --account-threshold gives each labelled account's correction its own threshold, chosen by
that rule from its held-out labels (default none: the model's threshold for every account; docs/model.md).`;

function parseCommandLine(argv: string[]) {
  return parseFlags(argv, {
    data: { type: 'string', default: 'data' },
    out: { type: 'string', default: 'models' },
    seed: { type: 'string', default: '42' },
    'training-seed': { type: 'string' },
    epochs: { type: 'string', default: '12' },
    'target-fpr': { type: 'string', default: '0.01' },
    'batch-size': { type: 'string', default: '64' },
    'learning-rate': { type: 'string', default: '0.02' },
    l2: { type: 'string', default: '1e-7' },
    'nb-alpha': { type: 'string', default: String(DEFAULT_NB_SCALING.alpha) },
    'nb-mix': { type: 'string', default: String(DEFAULT_NB_SCALING.mix) },
    'source-weights': { type: 'string' },
    backend: { type: 'string' },
    holdout: { type: 'string', default: DEFAULT_HOLDOUT_DIR },
    'account-threshold': { type: 'string', default: 'none' },
  });
}

type Flags = ReturnType<typeof parseCommandLine>['values'];

function num(values: Flags, name: keyof Flags, min: number, max: number, integer = false): number {
  const v = Number(values[name]);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(values[name])}`);
  }
  return v;
}

/** `forms=6,forms:legitimate=9`: a weight per source, or per source and label. */
function sourceWeights(spec: string | undefined): Readonly<Record<string, number>> {
  if (spec === undefined) return DEFAULT_SOURCE_WEIGHTS;
  const out: Record<string, number> = {};
  for (const part of spec.split(',')) {
    const m = /^([a-z0-9_-]+(?::(?:spam|legitimate))?)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (m === null || !(Number(m[2]) > 0))
      throw new UsageError(`--source-weights takes <source>[:spam|:legitimate]=<positive number>, comma-separated; got ${part}`);
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

function accountThreshold(rule: string): AccountThresholdRule {
  if (!(ACCOUNT_THRESHOLD_RULES as readonly string[]).includes(rule))
    throw new UsageError(`--account-threshold must be one of ${ACCOUNT_THRESHOLD_RULES.join('|')}, got ${rule}`);
  return rule as AccountThresholdRule;
}

function backend(name: string | undefined): BackendName | undefined {
  if (name !== undefined && !isBackendName(name)) throw new UsageError(`--backend must be one of ${BACKENDS.join('|')}, got ${name}`);
  return name;
}

// A progress bar on a terminal, plain lines in CI logs.
const tty = process.stdout.isTTY === true;
const bar = tty ? new SingleBar({ format: '{phase} [{bar}] {percentage}% | {value}/{total} batches' }, Presets.shades_classic) : null;
let barPhase = '';
// On a terminal the bar stands for the epoch lines; the summaries (records loaded, split sizes) are still printed.
const EPOCH_LINE = /: epoch \d+\/\d+ /;

function log(line: string): void {
  if (bar && EPOCH_LINE.test(line)) return;
  // Above a running bar: clear its line, print, and its next update redraws it below.
  if (bar && barPhase) process.stdout.write('\r\x1b[K');
  console.log(line);
}

function progress(done: number, total: number, phase: string): void {
  if (!bar) return;
  if (phase !== barPhase) {
    if (barPhase) bar.stop();
    barPhase = phase;
    bar.start(total, 0, { phase });
  }
  bar.update(done, { phase });
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseCommandLine(argv);
  const nbMix = num(values, 'nb-mix', 0, 1);
  const options: TrainingOptions = {
    dataDir: path.resolve(values.data),
    outDir: path.resolve(values.out),
    seed: num(values, 'seed', 0, 2 ** 31, true),
    ...(values['training-seed'] === undefined ? {} : { trainingSeed: num(values, 'training-seed', 0, 2 ** 31, true) }),
    epochs: num(values, 'epochs', 1, 1000, true),
    targetFpr: num(values, 'target-fpr', 0, 0.5),
    batchSize: num(values, 'batch-size', 1, 4096, true),
    learningRate: num(values, 'learning-rate', 1e-6, 10),
    l2: num(values, 'l2', 0, 1),
    sourceWeights: sourceWeights(values['source-weights']),
    nbScaling: nbMix === 1 ? null : { alpha: num(values, 'nb-alpha', 1e-6, 1000), mix: nbMix },
    backend: backend(values.backend),
    holdoutDir: path.resolve(values.holdout),
    corrections: { ...DEFAULT_CORRECTION_SETTINGS, threshold: accountThreshold(values['account-threshold']) },
    log,
    progress,
  };
  const kept = await keepWhatServes(options.outDir);
  if (kept !== undefined) log(kept);
  const result = await runTraining(options);
  bar?.stop();
  const t = result.manifest.metrics.test;
  const b = result.manifest.baseline.test;
  console.log(`\nexported ${path.relative(process.cwd(), result.dir)} in ${result.manifest.trainingSeconds} s`);
  console.log(`threshold ${result.manifest.threshold.toFixed(4)} (target FPR ${result.manifest.targetFpr}), test ECE ${t.ece.toFixed(4)}`);
  console.log('test split        F1      FPR     ROC-AUC   (baseline F1 / FPR)');
  for (const [name, m] of [['all', t.overall], ...Object.entries(t.bySource)] as const) {
    const bm = name === 'all' ? b.overall : b.bySource[name];
    console.log(
      `  ${name.padEnd(14)}  ${m.f1.toFixed(3)}   ${(100 * m.fpr).toFixed(2)}%   ${m.rocAuc?.toFixed(4) ?? 'n/a'}    (${bm?.f1.toFixed(3)} / ${bm ? (100 * bm.fpr).toFixed(2) : '?'}%)`,
    );
  }
  // Training never changes what serves: it ends with how the candidate compares with what does.
  for (const line of await comparisonWithActive(options.outDir, result, options.dataDir, options.holdoutDir as string)) console.log(line);
}

// Caught by runCommand: uncaught, an error reaches the WASM backend's own handler, which prints the whole minified backend.
runCommand({
  name: 'train',
  usage: HELP,
  main: run,
  exitCodeOf: (e) => (e instanceof DataError || e instanceof BackendError || e instanceof ModelExistsError ? 2 : undefined),
  cleanup: () => bar?.stop(),
});
