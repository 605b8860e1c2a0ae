import path from 'node:path';
import { listModelVersions, loadModelFolder } from '../../core/classifier/load.ts';
import { chooseServing, readServingRecord, servingFile, writeServingRecord } from '../../core/classifier/serving-record.ts';
import { fairComparison } from './fair-comparison.ts';
import type { TrainingResult } from '../pipeline.ts';

/**
 * Before a run exports into a folder with models and no serving record: without one the newest version serves, which
 * would make the candidate serve at the next start. The record keeps serving what serves now. Returns what it said.
 */
export async function keepWhatServes(modelsDir: string, now = new Date()): Promise<string | undefined> {
  const versions = await listModelVersions(modelsDir).catch(() => []);
  const newest = versions.at(-1);
  if (newest === undefined) return undefined;
  // An invalid record is left for a person to fix: the service keeps what serves meanwhile.
  if ((await readServingRecord(modelsDir).catch(() => 'invalid')) !== undefined) return undefined;
  await writeServingRecord(modelsDir, {
    active: newest,
    previous: null,
    shadow: null,
    changedAt: now.toISOString(),
    changedBy: 'npm run train (kept what served)',
  });
  return `wrote ${servingFile(modelsDir)}: ${newest} keeps serving (without a record the newest version would, and that is about to be this run's candidate)`;
}

/**
 * The end of `npm run train`: the run exported a candidate, which serves only once promoted; this sets it beside the
 * model that serves from the same folder, on the run's own test split less every record the serving model trained
 * on (as `npm run models -- compare` does), so a worse candidate is said before anyone promotes it.
 */
export async function comparisonWithActive(
  modelsDir: string,
  result: TrainingResult,
  dataDir: string,
  holdoutDir: string,
): Promise<string[]> {
  const version = result.manifest.version;
  const labels = result.manifest.data.labels;
  const lines = [
    '',
    `moderator labels: trained on ${labels.records}; ${labels.contradicting} of them contradicted the model's verdict, ${result.labelsContradictingData} contradicted a data record of the same text`,
  ];
  const record = await readServingRecord(modelsDir).catch((e: Error) => {
    lines.push(`the serving record cannot be read (${e.message}); comparing with the newest earlier version`);
    return undefined;
  });
  const others = (await listModelVersions(modelsDir)).filter((v) => v !== version);
  const pinned = process.env.MODEL_VERSION?.trim() || undefined;
  if (others.length === 0 && record === undefined) {
    lines.push(`${version} is the only model in ${modelsDir}: with no serving record, it serves at the next start.`);
    return lines;
  }
  const active = chooseServing(record, others, pinned).active;
  lines.push(`${version} is a candidate; ${active} still serves${pinned ? ' (MODEL_VERSION)' : ''}.`);
  try {
    const activeDir = path.join(modelsDir, active);
    const [current, candidate] = await Promise.all([loadModelFolder(activeDir), loadModelFolder(result.dir)]);
    const fair = fairComparison({
      current: { model: current, dir: activeDir },
      candidate: { model: candidate, dir: result.dir },
      records: result.test,
      what: `this run's test split (seed ${result.manifest.parameters.seed})`,
      dataDir,
      givenFiles: false,
      holdoutDir,
    });
    lines.push(...fair.lines);
  } catch (e) {
    lines.push(`no comparison: ${(e as Error).message}`);
  }
  lines.push(`to serve it: npm run models -- promote ${version} (or first: npm run models -- shadow ${version})`);
  return lines;
}
