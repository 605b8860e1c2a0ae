import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../core/cli/run.ts';
import { loadModelFolder } from '../core/classifier/load.ts';
import { parseFlags, UsageError } from '../core/cli/usage.ts';
import { initBackend } from '../training/model/backend.ts';
import { DEFAULT_MLP, ENSEMBLE, mlpFamily, NBLR, type BaseFamily, type DerivedFamily } from '../training/experiments/families.ts';
import { runProtocol, UnknownSiteError, type SiteResult } from '../training/experiments/protocol.ts';
import { LANGUAGE_GROUPS, LAYOUT_GROUPS, LINKS_SITE } from '../training/experiments/sites.ts';
import { renderCurveSvg } from '../training/experiments/curve-chart.ts';
import { correctionCurve, type CorrectionPoint } from '../training/experiments/corrections.ts';
import { DEFAULT_CORRECTION } from '../training/model/account-correction.ts';
import {
  ACCOUNT_THRESHOLD_RULES,
  DEFAULT_CORRECTION_SETTINGS,
  type AccountThresholdRule,
  type CorrectionSettings,
} from '../training/model/fit-account-corrections.ts';
import type { BinaryMetrics } from '../core/classifier/manifest.ts';
import { renderMarkdown } from '../training/experiments/render.ts';
import { customerCurves, type CustomerAccount, type CustomerPoint } from '../training/experiments/customer-curve.ts';
import { renderCustomerCurveSvg } from '../training/experiments/customer-chart.ts';

const HELP = `npm run experiment -- <lodo|report|corrections|customers> ...
npm run experiment -- lodo [--family nblr,mlp,ensemble] [--folds 5] [--only <site>[,<site>...]] [--curve [--curve-retrain 25,50,100,200]]
                          [--features-of models/<version>]
                             [--mlp-hidden 8] [--mlp-epochs 6] [--markdown out.md] [--json out.json]
Leave-one-site-out: each YouTube video, SMS, each group of form layouts and each group of form languages is held
out in turn; every family is trained on the rest (threshold and calibration out of fold, as \`npm run train\`) and
scored on the held-out site. Then the files of training/holdout/ are scored by models trained on split 42's
train + validation. --curve adds each site's learning curve (NB-LR). Prints a markdown table.
--only keeps the sites whose name contains one of the words (case ignored); a word that names none is refused
(exit 2). The sites: "video: <name>" for each YouTube file (KatyPerry, LMFAO, Eminem, Shakira), "SMS",
${[...Object.keys(LAYOUT_GROUPS), ...Object.keys(LANGUAGE_GROUPS), LINKS_SITE].map((n) => `"${n}"`).join(', ')}, and "holdout".
--features-of trains with that model's feature settings instead of today's defaults (the "before" of a change).
npm run experiment -- report --json a.json [--json b.json ...] [--chart out.svg] [--markdown out.md]
Merges lodo runs' JSON into one table, and draws the learning curve.
npm run experiment -- corrections [--dump .tmp/dump] [--l2 0.001,0.003,0.01,0.03,0.1]
Refits the per-account corrections from a curve run's dumps (lodo --curve --curve-dump <dir>) at each L2 pull and
prints mean F1 / FPR over the sites per number of labels.
npm run experiment -- customers [--dump .tmp/dump] [--data data] [--chart docs/learning-curve.svg] [--threshold none|flags|mean|soft]
                                [--folds interleaved|forward]
What a customer sees (docs/model.md, learning curve): on each video of a curve run's dumps, a labelling account and a
policy-differs account (self-promotion legitimate) label the first 25/50/100/200 comments in date order and get the
correction training would export; F1 / FPR by each account's own labels on the comments after the first 200.
--threshold and --folds override how training chooses each account's threshold and holds its labels out.`;

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('which experiment? lodo, report, corrections or customers');
  if (command === 'report') return report(rest);
  if (command === 'corrections') return corrections(rest);
  if (command === 'customers') return customers(rest);
  if (command !== 'lodo') throw new UsageError(`unknown experiment ${command} (have: lodo, report, corrections, customers)`);
  const { values } = parseFlags(rest, {
    family: { type: 'string', default: 'nblr,mlp,ensemble' },
    folds: { type: 'string', default: '5' },
    only: { type: 'string', default: '' },
    curve: { type: 'boolean', default: false },
    'mlp-hidden': { type: 'string', default: String(DEFAULT_MLP.hidden) },
    'mlp-epochs': { type: 'string', default: String(DEFAULT_MLP.epochs) },
    seed: { type: 'string', default: '42' },
    data: { type: 'string', default: 'data' },
    holdout: { type: 'string', default: 'training/holdout' },
    markdown: { type: 'string' },
    json: { type: 'string' },
    'curve-dump': { type: 'string' },
    'curve-retrain': { type: 'string', default: '25,50,100,200' },
    'features-of': { type: 'string' },
  });
  const names = values.family.split(',').filter(Boolean);
  const mlp = mlpFamily({ ...DEFAULT_MLP, hidden: Number(values['mlp-hidden']), epochs: Number(values['mlp-epochs']) });
  const known: Record<string, BaseFamily | DerivedFamily> = { nblr: NBLR, mlp, ensemble: ENSEMBLE };
  for (const n of names) if (!known[n]) throw new UsageError(`unknown family ${n} (have: ${Object.keys(known).join(', ')})`);
  const derived = names.map((n) => known[n]).filter((f): f is DerivedFamily => 'combine' in (f as object));
  const needed = new Set([
    ...names.filter((n) => !('combine' in (known[n] as object))),
    ...derived.flatMap((d) => d.from),
    ...(values.curve ? ['nblr'] : []),
  ]);
  const base = [...needed].map((n) => known[n] as BaseFamily);
  const folds = Number(values.folds);
  if (!Number.isInteger(folds) || folds < 2) throw new UsageError('--folds must be an integer of at least 2');
  const backend = await initBackend();
  const started = performance.now();
  console.log(`backend ${backend}; families ${[...base.map((b) => b.name), ...derived.map((d) => d.name)].join(', ')}; ${folds} folds`);
  const results = await runProtocol({
    dataDir: path.resolve(values.data),
    holdoutDir: path.resolve(values.holdout),
    base,
    derived,
    folds,
    seed: Number(values.seed),
    targetFpr: 0.01,
    only: values.only.split(',').filter(Boolean),
    ...(values['features-of'] ? { features: (await loadModelFolder(values['features-of'])).manifest.featureSettings } : {}),
    curve: values.curve,
    retrainSteps: values['curve-retrain'].split(',').filter(Boolean).map(Number),
    ...(values['curve-dump'] ? { dumpDir: path.resolve(values['curve-dump']) } : {}),
    log: (l) => console.log(l),
    onProgress: (so) => values.json && writeFileSync(values.json, `${JSON.stringify(so, null, 1)}\n`),
  });
  const shown = [...base.map((b) => b.name), ...derived.map((d) => d.name)];
  const md = renderMarkdown(results, shown, Object.fromEntries([...base, ...derived].map((f) => [f.name, f.describe])));
  console.log(`\n${md}\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
  if (values.markdown) writeFileSync(values.markdown, md);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 1)}\n`);
}

/** Per-account corrections refitted from the curve's dumps at several pulls: mean F1 / FPR over the sites per step. */
function corrections(argv: string[]): void {
  const { values } = parseFlags(argv, {
    dump: { type: 'string', default: '.tmp/dump' },
    l2: { type: 'string', default: '0.001,0.003,0.01,0.03,0.1' },
  });
  const settings = Object.fromEntries(values.l2.split(',').map((v) => [`l2 ${v}`, { ...DEFAULT_CORRECTION, l2: Number(v) }]));
  const points = correctionCurve(values.dump, settings);
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  console.log(
    `| labelled | sites | global | ${Object.keys(settings).join(' | ')} |\n|---|---|---|${Object.keys(settings)
      .map(() => '---')
      .join('|')}|`,
  );
  for (const n of [...new Set(points.map((p) => p.labelled))]) {
    const at = points.filter((p) => p.labelled === n);
    const avg = (pick: (p: CorrectionPoint) => { f1: number; fpr: number }) =>
      `${(at.reduce((a, p) => a + pick(p).f1, 0) / at.length).toFixed(3)} / ${pct(at.reduce((a, p) => a + pick(p).fpr, 0) / at.length)}`;
    console.log(
      `| ${n} | ${at.length} | ${avg((p) => p.global)} | ${Object.keys(settings)
        .map((k) => avg((p) => p.corrected[k] as BinaryMetrics))
        .join(' | ')} |`,
    );
  }
}

/** The customer's learning curve from a curve run's dumps: per site and step, then the mean over sites. */
function customers(argv: string[]): void {
  const { values } = parseFlags(argv, {
    dump: { type: 'string', default: '.tmp/dump' },
    data: { type: 'string', default: 'data' },
    chart: { type: 'string' },
    threshold: { type: 'string' },
    folds: { type: 'string' },
  });
  const settings = customerSettings(values.threshold, values.folds);
  const points = customerCurves(path.resolve(values.dump), path.resolve(values.data), settings);
  if (points.length === 0) throw new UsageError(`no video dumps with record ids in ${values.dump}`);
  const cell = (m: BinaryMetrics) => `${m.f1.toFixed(3)} / ${(100 * m.fpr).toFixed(1)}%`;
  console.log(
    '| site | labels | later | labelling: global | labelling: corrected | policy-differs: global | policy-differs: corrected | self-promotion passing (global → policy-differs) |',
  );
  console.log('|---|---:|---:|---|---|---|---|---|');
  const row = (site: string, n: number | string, rest: number | string, at: readonly CustomerPoint[]) => {
    const avg = (pick: (p: CustomerPoint) => BinaryMetrics): BinaryMetrics => {
      const m = (k: 'f1' | 'fpr') => at.reduce((s, p) => s + pick(p)[k], 0) / at.length;
      return { ...pick(at[0]!), f1: m('f1'), fpr: m('fpr') };
    };
    const sum = (k: 'of' | 'globalPass' | 'correctedPass') => at.reduce((s, p) => s + p.accounts['policy-differs'].selfPromotion[k], 0);
    const fitted = (a: CustomerAccount) =>
      at.every((p) => p.accounts[a].fitted) ? '' : ` (${at.filter((p) => !p.accounts[a].fitted).length} kept the global model)`;
    console.log(
      `| ${site} | ${n} | ${rest} | ${cell(avg((p) => p.accounts.labelling.global))} | ${cell(avg((p) => p.accounts.labelling.corrected))}${fitted('labelling')} | ` +
        `${cell(avg((p) => p.accounts['policy-differs'].global))} | ${cell(avg((p) => p.accounts['policy-differs'].corrected))}${fitted('policy-differs')} | ` +
        `${sum('globalPass')} → ${sum('correctedPass')} of ${sum('of')} |`,
    );
  };
  for (const p of points) row(p.site, p.labelled, p.rest, [p]);
  const sites = new Set(points.map((p) => p.site)).size;
  for (const n of [...new Set(points.map((p) => p.labelled))])
    row(
      `**mean of ${sites}**`,
      n,
      '',
      points.filter((p) => p.labelled === n),
    );
  if (!values.chart) return;
  // With a threshold rule, the chart draws it beside the corrections training exports by default.
  if (settings.threshold === undefined || settings.threshold === 'none') writeFileSync(values.chart, renderCustomerCurveSvg(points));
  else {
    const plain = customerCurves(path.resolve(values.dump), path.resolve(values.data), { ...settings, threshold: 'none' });
    writeFileSync(values.chart, renderCustomerCurveSvg(plain, { name: `with its own threshold (${settings.threshold})`, points }));
  }
}

/** The correction settings training uses, with the account threshold's rule and the folds' order overridden if given. */
function customerSettings(threshold: string | undefined, folds: string | undefined): CorrectionSettings {
  if (threshold !== undefined && !(ACCOUNT_THRESHOLD_RULES as readonly string[]).includes(threshold))
    throw new UsageError(`--threshold must be one of ${ACCOUNT_THRESHOLD_RULES.join(', ')}`);
  if (folds !== undefined && folds !== 'interleaved' && folds !== 'forward') throw new UsageError('--folds must be interleaved or forward');
  return {
    ...DEFAULT_CORRECTION_SETTINGS,
    ...(threshold === undefined ? {} : { threshold: threshold as AccountThresholdRule }),
    ...(folds === undefined ? {} : { folds }),
  };
}

/** Merges the JSON of several lodo runs (e.g. run in parallel, one per group of sites) into one table and the curve's chart. */
function report(argv: string[]): void {
  const { values } = parseFlags(argv, {
    json: { type: 'string', multiple: true },
    family: { type: 'string', default: 'nblr,mlp,ensemble' },
    chart: { type: 'string' },
    dump: { type: 'string', default: '.tmp/dump' },
    l2: { type: 'string', default: String(DEFAULT_CORRECTION.l2) },
    markdown: { type: 'string' },
  });
  if (!values.json?.length) throw new UsageError('report needs --json <file> (one or more)');
  const results = values.json.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as SiteResult[]);
  const order = (r: SiteResult) => ['video', 'sms', 'layouts', 'languages', 'holdout'].indexOf(r.kind);
  results.sort((a, b) => order(a) - order(b));
  const names = values.family.split(',').filter(Boolean);
  const describe = { nblr: NBLR.describe, mlp: mlpFamily().describe, ensemble: ENSEMBLE.describe };
  const md = renderMarkdown(results, names, describe);
  console.log(md);
  if (values.markdown) writeFileSync(values.markdown, md);
  if (values.chart) {
    // The chart's curves are refitted from the dumps (each site's items in arrival order with the global log-odds).
    const name = `l2 ${values.l2}`;
    const points = correctionCurve(values.dump, { [name]: { ...DEFAULT_CORRECTION, l2: Number(values.l2) } });
    writeFileSync(
      values.chart,
      renderCurveSvg(
        points.map((p) => ({ site: p.site, labelled: p.labelled, global: p.global, corrected: p.corrected[name] })),
        name,
      ),
    );
  }
}

runCommand({ name: 'experiment', usage: HELP, main: run, exitCodeOf: (e) => (e instanceof UnknownSiteError ? 2 : undefined) });
