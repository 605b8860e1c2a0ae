import path from 'node:path';
import { loadModelFolder } from '../core/classifier/load.ts';
import { Attribution } from '../core/classifier/attribution.ts';
import type { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import { eligible, groupId } from '../core/classifier/reasoning.ts';
import { logit, sigmoid } from '../core/classifier/sigmoid.ts';
import { FeatureExtractor } from '../core/features/index.ts';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError } from '../core/cli/usage.ts';
import { latestLabels, readLabelledFile } from '../training/data/loaders.ts';
import { seededRandom, shuffleInPlace } from '../training/data/random.ts';
import type { LabelledRecord } from '../training/data/record.ts';

const HELP = `npx tsx cli/reasoning-report.ts --model models/<version> --data <file> [--data <file> ...]
       [--compare models/<other> ...] [--sample 50] [--sample-from <file> ...] [--seed 1]
Measures what the reasoning may name (docs/model.md, "How the reasoning is chosen"): the contributions, in
calibrated log-odds, of the signal groups that pushed towards each verdict; for each candidate cut-off, how many
verdicts keep a named reason and, with --compare (models trained on other splits), how often a signal named by
this model is still material towards the same verdict in the other model. Then prints --sample reasoning
sentences drawn at random (--seed) from the --sample-from files (default: the --data files).`;

const CUTOFFS = [0.125, 0.25, 0.5, 0.75, 1, 1.5];
const BANDS = [0.125, 0.25, 0.5, 0.75, 1, 1.5, 3, Infinity];

interface Scored {
  status: 'spam' | 'legitimate';
  /** Group id -> contribution towards this model's verdict, for the groups the reasoning may name. */
  toward: Map<string, number>;
}

/** The groups of one verdict that could be named: structure facts that are evidence, the rest as explain reads them. */
function score(c: LinearClassifier, x: FeatureExtractor, a: Attribution, r: LabelledRecord, status?: 'spam' | 'legitimate'): Scored {
  const { a: slope, b } = c.manifest.calibration;
  const f = x.extract(r.fields);
  const p = sigmoid(slope * a.run(c.scorer, f, slope) + b);
  const own = p >= c.manifest.threshold ? 'spam' : 'legitimate';
  const sign = (status ?? own) === 'spam' ? 1 : -1;
  const toward = new Map<string, number>();
  for (let g = 0; g < a.groupCount; g++) {
    if (a.first[g] === -1 || !eligible(f, g, sign)) continue;
    toward.set(groupId(f, g), (a.net[g] as number) * sign);
  }
  return { status: own, toward };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function load(files: readonly string[]): LabelledRecord[] {
  const loaded = files.map((file) => readLabelledFile(path.resolve(file)));
  return latestLabels(
    loaded.flatMap((l) => l.records),
    loaded.flatMap((l) => l.withdrawals),
  );
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    data: { type: 'string', multiple: true },
    compare: { type: 'string', multiple: true },
    sample: { type: 'string', default: '50' },
    'sample-from': { type: 'string', multiple: true },
    seed: { type: 'string', default: '1' },
  });
  if (!values.model || !values.data?.length) throw new UsageError(`${values.model ? '--data' : '--model'} is required`);
  const model = await loadModelFolder(path.resolve(values.model));
  const others = await Promise.all((values.compare ?? []).map((m) => loadModelFolder(path.resolve(m))));
  const records = load(values.data);
  const a = new Attribution();
  const x = new FeatureExtractor(model.manifest.featureSettings);
  const ox = others.map((o) => new FeatureExtractor(o.manifest.featureSettings));

  // Per band of contribution in this model: how the same signal of the same record fares in the other models.
  const bands = BANDS.map(() => ({ n: 0, compared: 0, sameSide: 0, close: 0 }));
  const all: number[] = [];
  const top: number[] = [];
  // Per cut-off: verdicts with a nameable signal; named signals; of those, still material and same side in each other model.
  const kept = CUTOFFS.map(() => ({ verdicts: 0, named: 0, stable: 0, compared: 0 }));
  for (const r of records) {
    const s = score(model, x, a, r);
    const vals = [...s.toward.values()].filter((v) => v > 0);
    all.push(...vals);
    top.push(Math.max(0, ...vals));
    const alt = others.map((o, i) => score(o, ox[i] as FeatureExtractor, a, r, s.status));
    for (const [id, v] of s.toward) {
      if (v <= 0) continue;
      const band = bands[BANDS.findIndex((upper) => v < upper)] as (typeof bands)[number];
      band.n++;
      for (const o of alt) {
        const w = o.toward.get(id) ?? 0;
        band.compared++;
        if (w > 0) band.sameSide++;
        if (Math.abs(w - v) <= v / 2) band.close++;
      }
    }
    CUTOFFS.forEach((cut, i) => {
      const k = kept[i] as (typeof kept)[number];
      let any = false;
      for (const [id, v] of s.toward) {
        if (v < cut) continue;
        any = true;
        k.named++;
        for (const o of alt) {
          k.compared++;
          if ((o.toward.get(id) ?? 0) >= cut) k.stable++;
        }
      }
      if (any) k.verdicts++;
    });
  }
  all.sort((p, q) => p - q);
  top.sort((p, q) => p - q);
  const fmt = (v: number) => v.toFixed(2);
  console.log(
    `model ${model.modelVersion}; ${records.length} records; compared with ${others.map((o) => o.modelVersion).join(', ') || 'no other model'}\n`,
  );
  console.log('Contributions (log-odds) of nameable groups pushing towards the verdict, quantiles 10/25/50/75/90%:');
  console.log(`  every such group: ${[0.1, 0.25, 0.5, 0.75, 0.9].map((q) => fmt(quantile(all, q))).join(' / ')} (n=${all.length})`);
  console.log(`  the strongest per verdict: ${[0.1, 0.25, 0.5, 0.75, 0.9].map((q) => fmt(quantile(top, q))).join(' / ')}\n`);
  console.log(
    '| cut-off (log-odds) | probability at the threshold | verdicts with a named reason | named per verdict | still material in the other models |',
  );
  console.log('|---:|---|---:|---:|---:|');
  const t = model.manifest.threshold;
  const z = logit(t);
  CUTOFFS.forEach((cut, i) => {
    const k = kept[i] as (typeof kept)[number];
    const moved = `${fmt(sigmoid(z - cut))}-${fmt(sigmoid(z + cut))}`;
    const stable = k.compared ? `${((100 * k.stable) / k.compared).toFixed(1)}%` : 'n/a';
    console.log(
      `| ${cut} | ${moved} | ${((100 * k.verdicts) / records.length).toFixed(1)}% | ${(k.named / records.length).toFixed(2)} | ${stable} |`,
    );
  });

  if (others.length) {
    console.log('\n| contribution in this model | signals | same side in the other models | within half of it there |');
    console.log('|---|---:|---:|---:|');
    let lower = 0;
    BANDS.forEach((upper, i) => {
      const b = bands[i] as (typeof bands)[number];
      const pct = (k: number) => (b.compared ? `${((100 * k) / b.compared).toFixed(1)}%` : 'n/a');
      console.log(`| ${lower}-${upper === Infinity ? '' : upper} | ${b.n} | ${pct(b.sameSide)} | ${pct(b.close)} |`);
      lower = upper;
    });
  }

  const n = Number(values.sample);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--sample must be a whole number, got ${values.sample}`);
  if (n === 0) return;
  const pool = shuffleInPlace(load(values['sample-from'] ?? values.data), seededRandom(Number(values.seed)));
  console.log(`\n${n} sentences drawn at random (seed ${values.seed}) with model ${model.modelVersion}:\n`);
  console.log('| record | label | reasoning |');
  console.log('|---|---|---|');
  for (const r of pool.slice(0, n)) console.log(`| ${r.id} | ${r.label} | ${model.classify(r.fields).reasoning.replace(/\|/g, '\\|')} |`);
}

runCommand({ name: 'reasoning-report', usage: HELP, main: run });
