import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadClassifier } from '../../service/classifier/load.ts';
import { ModelLoadError } from '../../service/classifier/errors.ts';
import { DataError, latestLabels, loadLabelledFile } from '../data/loaders.ts';
import { evaluate } from '../model/metrics.ts';

const HELP = `npm run evaluate -- --model models/<version> --data <file> [--data <file> ...]
Scores labelled files (JSON Lines of records or form records, the YouTube CSV format, the SMS TSV format)
with a model and prints precision, recall, F1, false-positive rate, ROC-AUC and calibration error.`;

const { values } = parseArgs({
  options: { model: { type: 'string' }, data: { type: 'string', multiple: true }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
});
if (values.help || !values.model || !values.data?.length) {
  console.log(HELP);
  process.exit(values.help ? 0 : 2);
}

try {
  const dir = path.resolve(values.model);
  const classifier = await loadClassifier({ modelsDir: path.dirname(dir), version: path.basename(dir) });
  // An exported labels file holds a line per relabel: score each submission once, by its newest label, as training does.
  const records = latestLabels(values.data.flatMap((file) => loadLabelledFile(path.resolve(file))));
  const scored = records.map((r) => ({ source: r.source, label: (r.label === 'spam' ? 1 : 0) as 0 | 1, p: classifier.spamProbability(r.fields) }));
  const result = evaluate(scored, classifier.manifest.threshold);
  if (values.json) {
    console.log(JSON.stringify({ model: classifier.modelVersion, threshold: classifier.manifest.threshold, ...result }, null, 2));
  } else {
    console.log(`model ${classifier.modelVersion}, threshold ${classifier.manifest.threshold.toFixed(4)}, ECE ${result.ece.toFixed(4)}`);
    console.log('source            n      spam   precision  recall   F1      FPR      ROC-AUC');
    for (const [name, m] of [['all', result.overall], ...Object.entries(result.bySource)] as const) {
      console.log(
        `${name.padEnd(16)}  ${String(m.n).padStart(5)}  ${String(m.spam).padStart(5)}   ${m.precision.toFixed(3)}      ${m.recall.toFixed(3)}    ${m.f1.toFixed(3)}   ${(100 * m.fpr).toFixed(2).padStart(5)}%   ${m.rocAuc?.toFixed(4) ?? 'n/a'}`,
      );
    }
  }
} catch (e) {
  if (e instanceof ModelLoadError || e instanceof DataError) {
    console.error(`evaluate: ${e.message}`);
    process.exit(2);
  }
  throw e;
}
