import type { SiteResult } from './protocol.ts';

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

/** Population standard deviation: the spread between sites, not an estimate of anything beyond them. */
function std(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
}

export interface FamilySummary {
  readonly family: string;
  readonly meanF1: number;
  readonly sdF1: number;
  readonly minF1: number;
  readonly meanFpr: number;
  readonly sdFpr: number;
  readonly maxFpr: number;
  readonly meanAuc: number;
}

/** Means and spread over the protocol's sites (the held-out files are reported apart). */
export function summarize(results: readonly SiteResult[], family: string): FamilySummary {
  const sites = results.filter((r) => r.kind !== 'holdout' && r.families[family]);
  const f1 = sites.map((r) => r.families[family]!.metrics.f1);
  const fpr = sites.map((r) => r.families[family]!.metrics.fpr);
  const auc = sites.map((r) => r.families[family]!.metrics.rocAuc ?? 0);
  return {
    family,
    meanF1: mean(f1),
    sdF1: std(f1),
    minF1: Math.min(...f1),
    meanFpr: mean(fpr),
    sdFpr: std(fpr),
    maxFpr: Math.max(...fpr),
    meanAuc: mean(auc),
  };
}

export function renderMarkdown(
  results: readonly SiteResult[],
  families: readonly string[],
  describe: Readonly<Record<string, string>>,
): string {
  const lines: string[] = [];
  lines.push('Families:', '', ...families.map((f) => `- \`${f}\`: ${describe[f] ?? f}`), '');
  const head = `| site | n (spam) | ${families.map((f) => `${f} F1 / FPR / ROC-AUC`).join(' | ')} |`;
  const rule = `|---|---|${families.map(() => '---').join('|')}|`;
  const row = (r: SiteResult) =>
    `| ${r.site} | ${r.n} (${r.spam}) | ${families
      .map((f) => {
        const m = r.families[f]?.metrics;
        return m ? `${m.f1.toFixed(3)} / ${pct(m.fpr)} / ${m.rocAuc?.toFixed(3) ?? 'n/a'}` : 'n/a';
      })
      .join(' | ')} |`;
  const sites = results.filter((r) => r.kind !== 'holdout');
  lines.push('Leave one site out (trained on everything else; threshold for 1% out-of-fold FPR):', '', head, rule, ...sites.map(row));
  const sums = families.map((f) => summarize(results, f));
  lines.push(
    `| **mean ± sd** | ${sites.length} sites | ${sums.map((s) => `**${s.meanF1.toFixed(3)} ± ${s.sdF1.toFixed(3)} / ${pct(s.meanFpr)} ± ${pct(s.sdFpr)}** / ${s.meanAuc.toFixed(3)}`).join(' | ')} |`,
  );
  lines.push(`| worst | | ${sums.map((s) => `${s.minF1.toFixed(3)} / ${pct(s.maxFpr)}`).join(' | ')} |`);
  const held = results.filter((r) => r.kind === 'holdout');
  if (held.length)
    lines.push('', "Held-out files (trained on split 42's train + validation, as the shipped model):", '', head, rule, ...held.map(row));
  const curves = results.filter((r) => r.curve?.length);
  if (curves.length) {
    lines.push('', 'Learning curve (first N of the site labelled in arrival order; F1 / FPR on the rest of the site):', '');
    const names = Object.keys(curves[0]!.curve![0]!.corrections);
    lines.push(
      `| site | labelled | rest | global | retrained | ${names.map((n) => `correction ${n}`).join(' | ')} |`,
      `|---|---|---|---|---|${names.map(() => '---').join('|')}|`,
    );
    for (const r of curves) {
      for (const p of r.curve!) {
        const cell = (m: { f1: number; fpr: number }) => `${m.f1.toFixed(3)} / ${pct(m.fpr)}`;
        lines.push(
          `| ${r.site} | ${p.labelled} | ${p.rest} | ${cell(p.global)} | ${p.retrained ? cell(p.retrained) : '-'} | ${names.map((n) => cell(p.corrections[n]!)).join(' | ')} |`,
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
