import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError } from '../core/cli/usage.ts';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor, type FeatureSettings } from '../core/features/index.ts';
import { sigmoid } from '../core/classifier/sigmoid.ts';
import { NBLR } from '../training/experiments/families.ts';
import { loadDataDir } from '../training/data/loaders.ts';
import { splitRecords } from '../training/data/split.ts';
import type { LabelledRecord } from '../training/data/record.ts';
import { initBackend } from '../training/model/backend.ts';
import { rocAuc, type Scored } from '../training/model/metrics.ts';
import { DEFAULT_NB_SCALING, DEFAULT_SOURCE_WEIGHTS } from '../training/pipeline.ts';

const HELP = `npx tsx cli/experiment-links.ts [--seeds 1,2,3] [--data data] [--variants <name>,<name>] [--new <id prefix>,...]
Which link features to keep, decided on validation splits (never on training/holdout/): for each seed's split, the
shipped NB-LR setup is trained on the train part with each feature variant and scored on the validation part.
Prints, per variant, the validation ROC-AUC, the spam caught at a 1% false-positive rate (threshold set on the
validation scores, the same rule for every variant), and, among the validation forms with links, the legitimate
ones flagged and the spam caught at that threshold. --variants runs some of them by name (counts,
kinds+counts,kinds,kinds-no-hosts,account-words,no-own-site,no-scripts; default all). --new measures new training data instead:
each variant is trained without and then with the records whose id starts with one of the prefixes (fl13-,fs10-),
and both are scored on the same validation records, the new ones left out (the split puts each text on its side by
its own hash, so the other records' sides do not move).`;

// Each variant names every link setting (and scriptFeatures), so that a later default does not change what an earlier variant measured.
const BEFORE_LINK_KINDS = {
  linkContext: undefined,
  linkCounts: undefined,
  linkHostNames: undefined,
  linkAccountWords: undefined,
  linkOwnSite: undefined,
  scriptFeatures: undefined,
};
// Each variant from the one before it, changing one or two settings.
const counts: FeatureSettings = { ...DEFAULT_FEATURE_SETTINGS, ...BEFORE_LINK_KINDS };
const kinds: FeatureSettings = { ...counts, linkContext: true, linkCounts: false };
const kindsNoHosts: FeatureSettings = { ...kinds, linkHostNames: false };
const accountWords: FeatureSettings = { ...kindsNoHosts, linkAccountWords: true };
const noOwnSite: FeatureSettings = { ...accountWords, linkOwnSite: false };
const VARIANTS: Record<string, FeatureSettings> = {
  counts,
  'kinds+counts': { ...counts, linkContext: true, linkCounts: true },
  kinds,
  'kinds-no-hosts': kindsNoHosts,
  'account-words': accountWords,
  'no-own-site': noOwnSite,
  'no-scripts': { ...noOwnSite, scriptFeatures: false },
};

interface Row {
  auc: number;
  caught: number;
  spam: number;
  linkLegitFlagged: number;
  linkLegit: number;
  linkSpamCaught: number;
  linkSpam: number;
  linkAuc: number;
}

function measure(settings: FeatureSettings, train: readonly LabelledRecord[], held: readonly LabelledRecord[], seed: number): Row {
  const x = new FeatureExtractor(settings);
  const examples = train.map((r) => ({
    ...x.extractCopy(r.fields),
    label: (r.label === 'spam' ? 1 : 0) as 0 | 1,
    weight: r.weight * (DEFAULT_SOURCE_WEIGHTS[r.source] ?? 1),
  }));
  const model = NBLR.train(examples, { dimension: x.dimension, seed, nb: DEFAULT_NB_SCALING });
  const scored = held.map((r) => {
    const f = x.extract(r.fields);
    return { r, links: f.facts.links > 0, z: model.logit(f) };
  });
  // The threshold that flags at most 1% of the validation's legitimate records.
  const legit = scored
    .filter((s) => s.r.label !== 'spam')
    .map((s) => s.z)
    .sort((a, b) => b - a);
  const threshold = (legit[Math.floor(0.01 * legit.length)] ?? 0) + 1e-9;
  const asScored = (s: (typeof scored)[number]): Scored => ({
    source: s.r.source,
    label: s.r.label === 'spam' ? 1 : 0,
    p: sigmoid(s.z),
  });
  const linked = scored.filter((s) => s.links && s.r.source === 'forms');
  return {
    auc: rocAuc(scored.map(asScored)) ?? NaN,
    caught: scored.filter((s) => s.r.label === 'spam' && s.z >= threshold).length,
    spam: scored.filter((s) => s.r.label === 'spam').length,
    linkLegitFlagged: linked.filter((s) => s.r.label !== 'spam' && s.z >= threshold).length,
    linkLegit: linked.filter((s) => s.r.label !== 'spam').length,
    linkSpamCaught: linked.filter((s) => s.r.label === 'spam' && s.z >= threshold).length,
    linkSpam: linked.filter((s) => s.r.label === 'spam').length,
    linkAuc: rocAuc(linked.map(asScored)) ?? NaN,
  };
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    seeds: { type: 'string', default: '1,2,3' },
    data: { type: 'string', default: 'data' },
    variants: { type: 'string' },
    new: { type: 'string' },
  });
  const fresh = values.new === undefined ? [] : values.new.split(',').filter((p) => p !== '');
  const isNew = (r: LabelledRecord): boolean => fresh.some((p) => r.id.startsWith(p));
  const seeds = values.seeds.split(',').map(Number);
  if (seeds.some((s) => !Number.isInteger(s))) throw new UsageError('--seeds takes integers, e.g. 1,2,3');
  const names = values.variants === undefined ? Object.keys(VARIANTS) : values.variants.split(',');
  const unknown = names.filter((n) => !(n in VARIANTS));
  if (unknown.length) throw new UsageError(`unknown variant ${unknown.join(', ')} (have: ${Object.keys(VARIANTS).join(', ')})`);
  await initBackend();
  const { records } = loadDataDir(values.data);
  console.log('| variant | seed | ROC-AUC | spam caught at 1% FPR | forms with links: legitimate flagged | spam caught | ROC-AUC |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const seed of seeds) {
    const split = splitRecords(records, { seed, validation: 0.15, test: 0.15 });
    const runs: [string, readonly LabelledRecord[], readonly LabelledRecord[]][] =
      fresh.length === 0
        ? [['', split.train, split.validation]]
        : [
            [' without new', split.train.filter((r) => !isNew(r)), split.validation.filter((r) => !isNew(r))],
            [' with new', split.train, split.validation.filter((r) => !isNew(r))],
          ];
    for (const name of names) {
      const settings = VARIANTS[name] as FeatureSettings;
      for (const [what, train, held] of runs) {
        const m = measure(settings, train, held, seed);
        console.log(
          `| ${name}${what} | ${seed} | ${m.auc.toFixed(4)} | ${m.caught} of ${m.spam} | ${m.linkLegitFlagged} of ${m.linkLegit} | ${m.linkSpamCaught} of ${m.linkSpam} | ${m.linkAuc.toFixed(4)} |`,
        );
      }
    }
  }
}

runCommand({ name: 'experiment-links', usage: HELP, main: run });
