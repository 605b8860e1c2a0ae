import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../core/cli/run.ts';
import { parseFlags, UsageError, wholeNumber } from '../core/cli/usage.ts';
import { loadModelFolder } from '../core/classifier/load.ts';
import type { BinaryMetrics } from '../core/classifier/manifest.ts';
import { binaryMetrics } from '../training/model/metrics.ts';
import { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import { AccountCorrections } from '../core/classifier/account-corrections.ts';
import { FeatureExtractor } from '../core/features/index.ts';
import { DEFAULT_CORRECTION_SETTINGS as DEFAULT_CORRECTION, fitAccountCorrections } from '../training/model/fit-account-corrections.ts';
import { correctionCurve, siteExamples, THRESHOLD_STEPS, type CurvePoint } from '../training/experiments/account-curve.ts';
import { fileSite, reordered, videoSite, type Site } from '../training/experiments/account-sites.ts';

const HELP = `npx tsx cli/experiment-accounts.ts <curve|labels|scenario> [flags]
Measurements behind the per-account corrections (docs/model.md, "Per-account corrections").

  curve --model <folder> --site <file> [--site <file> ...] [--orders 20] [--l2 0.001] [--bias-l2 1]
      For each site (a YouTube CSV in date order, or a held-out .jsonl in seeded orders), a correction fitted on the
      first 5/10/20/30/50/75/100 items over the frozen model, against the model alone on the rest.
  labels --model <folder> --video <csv> --out <folder> [--labelled 100]
      Writes label files for the site's first items: account A labels them as they are, account B all
      legitimate (newer), once with accounts (new-*.jsonl) and once without (old-*.jsonl: the global-only lines of before).
  scenario --video <csv> --base <folder> --old-ab <folder> --old-a <folder> --new-ab <folder> [--labelled 100]
      Each account's figures on the rest of the site under the models trained from those label files.`;

const f1 = (m: BinaryMetrics) => `${m.f1.toFixed(3)} / ${(100 * m.fpr).toFixed(1)}%`;

function site(file: string, seed: number): Site {
  return file.endsWith('.csv') ? videoSite(file) : fileSite(file, seed);
}

async function curve(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    site: { type: 'string', multiple: true },
    orders: { type: 'string', default: '20' },
    l2: { type: 'string', default: String(DEFAULT_CORRECTION.l2) },
    'bias-l2': { type: 'string', default: String(DEFAULT_CORRECTION.biasL2) },
  });
  if (!values.model || !values.site?.length) throw new UsageError('curve needs --model and at least one --site');
  const model = await loadModelFolder(values.model);
  const orders = wholeNumber(values.orders, '--orders', 1, 1000);
  const opts = { ...DEFAULT_CORRECTION, l2: Number(values.l2), biasL2: Number(values['bias-l2']) };
  if (!(opts.l2 >= 0 && opts.biasL2 >= 0)) throw new UsageError('--l2 and --bias-l2 must be numbers of at least 0');
  console.log(`model ${model.modelVersion}, threshold ${model.manifest.threshold.toFixed(3)}, correction ${JSON.stringify(opts)}`);
  console.log(
    '\n| site | labels | global F1 / FPR | corrected F1 / FPR (mean over orders) | orders where the correction lowered F1 | raised FPR |',
  );
  console.log('|---|---:|---|---|---:|---:|');
  for (const file of values.site) {
    const first = site(file, 1);
    // A video keeps its arrival order first; every site is also measured in seeded shuffles of it.
    const runs = Array.from({ length: orders }, (_, k) => (k === 0 ? first : reordered(first, 1000 + k)));
    const curves = runs.map((s) => correctionCurve(siteExamples(model, s), model.manifest.threshold, opts));
    for (let step = 0; step < THRESHOLD_STEPS.length; step++) {
      const points = curves.map((c) => c[step]).filter((p): p is CurvePoint => p !== undefined);
      if (points.length === 0) continue;
      const mean = (get: (p: CurvePoint) => number) => points.reduce((s, p) => s + get(p), 0) / points.length;
      const lowered = points.filter((p) => p.corrected.f1 < p.global.f1 - 1e-9).length;
      const raised = points.filter((p) => p.corrected.fpr > p.global.fpr + 1e-9).length;
      console.log(
        `| ${first.name} (${first.items.length}) | ${points[0]?.labelled} | ${mean((p) => p.global.f1).toFixed(3)} / ${(100 * mean((p) => p.global.fpr)).toFixed(1)}% | ` +
          `${mean((p) => p.corrected.f1).toFixed(3)} / ${(100 * mean((p) => p.corrected.fpr)).toFixed(1)}% | ${lowered} of ${points.length} | ${raised} of ${points.length} |`,
      );
    }
  }
}

function uuidOf(s: string): string {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function labels(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    video: { type: 'string' },
    out: { type: 'string' },
    labelled: { type: 'string', default: '100' },
  });
  if (!values.model || !values.video || !values.out) throw new UsageError('labels needs --model, --video and --out');
  const model = await loadModelFolder(values.model);
  const s = videoSite(values.video);
  const n = wholeNumber(values.labelled, '--labelled', 1, s.items.length);
  const line = (account: 'A' | 'B', i: number, withAccount: boolean) => {
    const r = s.items[i]!;
    const label = account === 'A' ? r.label : 'legitimate';
    return JSON.stringify({
      submissionId: uuidOf(`${account}/${r.id}`),
      ...(withAccount ? { accountId: account } : {}),
      formId: `${account}-comments`,
      label,
      fields: r.fields,
      // B labels after A: under the old rule its label is the newest word on each text.
      labelledAt: new Date(Date.UTC(2026, 10, account === 'A' ? 20 : 21, 9, 0, i)).toISOString(),
      moderatorId: `${account}-mod`,
      // The verdict the frozen global model gave, so a contradiction weighs what it weighs in training.
      modelStatus: model.classify(r.fields).status,
      modelConfidence: model.classify(r.fields).confidence,
    });
  };
  mkdirSync(values.out, { recursive: true });
  const range = [...Array(n).keys()];
  const write = (name: string, accounts: ('A' | 'B')[], withAccount: boolean) =>
    writeFileSync(
      path.join(values.out as string, name),
      `${accounts.flatMap((a) => range.map((i) => line(a, i, withAccount))).join('\n')}\n`,
    );
  write('old-ab.jsonl', ['A', 'B'], false);
  write('old-a.jsonl', ['A'], false);
  write('new-ab.jsonl', ['A', 'B'], true);
  console.log(`wrote ${n} labels per account of ${s.name} to ${values.out}`);
}

async function scenario(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, {
    video: { type: 'string' },
    base: { type: 'string' },
    'old-ab': { type: 'string' },
    'old-a': { type: 'string' },
    'new-ab': { type: 'string' },
    labelled: { type: 'string', default: '100' },
  });
  if (!values.video || !values.base || !values['old-ab'] || !values['old-a'] || !values['new-ab'])
    throw new UsageError('scenario needs --video, --base, --old-ab, --old-a and --new-ab');
  const s = videoSite(values.video);
  const n = wholeNumber(values.labelled, '--labelled', 1, s.items.length - 1);
  const rest = s.items.slice(n);
  const figures = (m: LinearClassifier, accountId?: string) =>
    binaryMetrics(
      rest.map((r) => ({ source: s.name, label: r.label === 'spam' ? 1 : 0, p: m.spamProbability(r.fields, accountId) })),
      m.manifest.threshold,
    );
  const [base, oldAb, oldA, newAb] = (await Promise.all(
    [values.base, values['old-ab'], values['old-a'], values['new-ab']].map((d) => loadModelFolder(d as string)),
  )) as [LinearClassifier, LinearClassifier, LinearClassifier, LinearClassifier];
  // The corrections as training fits them today, over the global model of "now" (checked equal to "none" below).
  const extractor = new FeatureExtractor(base.manifest.featureSettings);
  const { a, b } = base.manifest.calibration;
  const first = s.items.slice(0, n);
  const file = fitAccountCorrections(
    new Map([
      ['A', first.map((r) => ({ ...r, accountId: 'A' }))],
      ['B', first.map((r) => ({ ...r, label: 'legitimate' as const, accountId: 'B' }))],
    ]),
    extractor,
    (x) => a * base.scorer.logit(x) + b,
  );
  const now = new LinearClassifier(newAb.manifest, extractor, newAb.scorer, new AccountCorrections(file));
  const flagged = (m: LinearClassifier, accountId?: string) => rest.filter((r) => m.classify(r.fields, accountId).status === 'spam').length;
  console.log(
    `${s.name}: ${n} labelled, the rest ${rest.length} (${rest.filter((r) => r.label === 'spam').length} spam); F1 / FPR on the rest`,
  );
  console.log('\n| labels | A (labels as they are) | B (all legitimate) | C (no labels) |');
  console.log('|---|---|---|---|');
  console.log(`| none | ${f1(figures(base))} | ${f1(figures(base))} | ${f1(figures(base))} |`);
  console.log(`| before: A alone, into the global model | ${f1(figures(oldA))} | ${f1(figures(oldA))} | ${f1(figures(oldA))} |`);
  console.log(`| before: A, then B, into the global model | ${f1(figures(oldAb))} | ${f1(figures(oldAb))} | ${f1(figures(oldAb))} |`);
  console.log(
    `| now: A and B, each its own correction | ${f1(figures(now, 'A'))} | ${f1(figures(now, 'B'))} (flags ${flagged(now, 'B')} of ${rest.length}) | ${f1(figures(now, 'C'))} |`,
  );
  console.log(
    `\n(as trained by that run, with its settings ${JSON.stringify(newAb.manifest.accountCorrections)}: A ${f1(figures(newAb, 'A'))}, B ${f1(figures(newAb, 'B'))})`,
  );
  console.log(
    `\nglobal weights of "now" identical to "none": ${newAb.scorer.table.every((w, i) => w === base.scorer.table[i]) && newAb.scorer.bias === base.scorer.bias}`,
  );
}

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'curve') return curve(rest);
  if (command === 'labels') return labels(rest);
  if (command === 'scenario') return scenario(rest);
  throw new UsageError(`unknown command ${command ?? '(none)'}`);
}

runCommand({ name: 'experiment-accounts', usage: HELP, main: run });
