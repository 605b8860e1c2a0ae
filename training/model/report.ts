import type { BinaryMetrics, Evaluation, Manifest } from '../../core/classifier/manifest.ts';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

function row(name: string, m: BinaryMetrics): string {
  return `| ${name} | ${m.n} | ${m.spam} | ${num(m.precision)} | ${num(m.recall)} | ${num(m.f1)} | ${pct(m.fpr)} | ${num(m.rocAuc)} |`;
}

function table(e: Evaluation): string {
  const head = '| split / source | n | spam | precision | recall | F1 | FPR | ROC-AUC |\n|---|---:|---:|---:|---:|---:|---:|---:|';
  const rows = [row('**all**', e.overall), ...Object.entries(e.bySource).map(([s, m]) => row(s, m))];
  return `${head}\n${rows.join('\n')}`;
}

function confusion(m: BinaryMetrics): string {
  return `| | predicted spam | predicted legitimate |\n|---|---:|---:|\n| actual spam | ${m.tp} | ${m.fn} |\n| actual legitimate | ${m.fp} | ${m.tn} |`;
}

/** report.md: what a data scientist reads before promoting a model. */
export function renderReport(m: Manifest): string {
  const splits = Object.entries(m.data.splits)
    .map(([s, c]) => `| ${s} | ${c.train} | ${c.validation} | ${c.test} |`)
    .join('\n');
  const better = (['f1', 'fpr'] as const).map((k) => {
    const ours = m.metrics.test.overall[k];
    const base = m.baseline.test.overall[k];
    return `${k.toUpperCase()} ${k === 'fpr' ? pct(ours) : num(ours)} vs baseline ${k === 'fpr' ? pct(base) : num(base)}`;
  });
  return `# Model ${m.version}

Created ${m.created} in ${m.trainingSeconds.toFixed(1)} s (backend ${m.parameters.backend}). Feature version \`${m.featureVersion}\`.
Decision threshold ${m.threshold.toFixed(4)} on the calibrated spam probability, chosen for a false-positive rate of at
most ${pct(m.targetFpr)} on out-of-fold scores: train + validation in 5 folds, each scored by a model trained on the
other four; the shipped model is trained on all of train + validation.${m.threshold === 0.5 ? ' The threshold sits at its floor of 0.5 (a spam verdict is never less likely spam than not), so the out-of-fold false-positive rate may be under the target.' : ''} Calibration, fitted on the same scores: Platt scaling (a = ${m.calibration.a.toFixed(4)}, b = ${m.calibration.b.toFixed(4)}).
Expected calibration error on test: ${m.metrics.test.ece.toFixed(4)}.${
    m.quantization
      ? `\nThe hashed weights ship as uint8 (TF.js affine quantization, step ${m.quantization.scale.toPrecision(4)}); the threshold,\ncalibration and every figure below were computed with the quantized weights.`
      : ''
  }${
    m.parameters.nbScaling
      ? `\nTrained as NB-LR: each feature scaled by its naive-Bayes log-count ratio (alpha ${m.parameters.nbScaling.alpha}, mix ${m.parameters.nbScaling.mix}),\nthe scales folded into the shipped weights. The baseline is plain logistic regression.`
      : ''
  }

Test split, this model against the baseline: ${better.join('; ')}.

## Test split

${table(m.metrics.test)}

Confusion matrix (test, all sources):

${confusion(m.metrics.test.overall)}

## Out-of-fold (train + validation, each record scored by the fold model that did not see it)

${table(m.metrics.validation)}

## Baseline (same split, same threshold rule)

${m.baseline.description}. Threshold ${m.baseline.threshold.toFixed(4)}.

${table(m.baseline.test)}

Confusion matrix (baseline, test):

${confusion(m.baseline.test.overall)}

## Data

| source | train | validation | test |
|---|---:|---:|---:|
${splits}

${m.data.duplicatesDropped} records dropped as repeats of a normalized text already kept (${m.data.conflictingLabels} of them with the other label).
Moderator labels: ${m.data.labels.records}${m.data.labels.loaded !== undefined && m.data.labels.loaded !== m.data.labels.records ? ` used of ${m.data.labels.loaded} (the newest line per submission; a label whose text a newer label repeats is left out${m.data.labels.withdrawn ? `; ${m.data.labels.withdrawn} withdrawn by an undo after their export` : ''})` : ''} (of which ${m.data.labels.contradicting} contradict the model's verdict and weigh ${m.data.labels.weights.contradicts}, confirmations weigh ${m.data.labels.weights.confirms}).
${accountLines(m)}

Files:

${m.data.files.map((f) => `- \`${f.path}\`: ${f.records} records, sha256 \`${f.sha256.slice(0, 16)}…\``).join('\n')}

## Parameters

\`\`\`json
${JSON.stringify(m.parameters, null, 2)}
\`\`\`
`;
}

/** Labels that name their account: what reached the global model and which accounts got a correction. */
function accountLines(m: Manifest): string {
  const a = m.data.labels.accounts;
  const c = m.accountCorrections;
  if (a === undefined || a.labels === 0) return '';
  const global =
    `Labels naming their account: ${a.labels} from ${a.accounts} accounts; ${a.agreed} entered the global model (a text labelled alike by at least ${a.minAccountsForGlobal} accounts), ` +
    `${a.heldBack} trained only their account's correction${a.disputed ? ` (${a.disputed} of them on texts accounts labelled both ways)` : ''}.`;
  const corrections = c
    ? `Per-account corrections (\`${c.file}\`): ${c.accounts} accounts with at least ${c.minLabels} labels` +
      (c.threshold === undefined || c.threshold === 'none' ? '.' : `; each account's threshold by the rule \`${c.threshold}\`.`)
    : 'No account had enough labels for a correction.';
  return `${global}\n${corrections}\n`;
}
