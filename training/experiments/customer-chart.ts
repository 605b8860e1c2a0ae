import { ACCOUNTS, type CustomerAccount, type CustomerPoint } from './customer-curve.ts';
import { legendSvg, panelAxes, seriesMarks } from './panel-svg.ts';

const ROW_TITLE: Record<CustomerAccount, string> = {
  labelling: 'labelling account (labels as the data say)',
  'policy-differs': 'policy-differs account (self-promotion legitimate)',
};

function twin(points: readonly CustomerPoint[], p: CustomerPoint): CustomerPoint {
  const t = points.find((q) => q.site === p.site && q.labelled === p.labelled);
  if (t === undefined) throw new Error(`no ${p.site} at ${p.labelled} labels in the compared curve`);
  return t;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * The customer's learning curve as an SVG: one row per account, mean F1 (left) and mean false-positive rate (right)
 * over the sites on the later items, by that account's own labels, for the global model alone and with the account's
 * correction; `alt`, the same sites and steps under other correction settings (an account threshold rule), as a third
 * line.
 */
export function renderCustomerCurveSvg(
  points: readonly CustomerPoint[],
  alt?: { readonly name: string; readonly points: readonly CustomerPoint[] },
): string {
  const sites = [...new Set(points.map((p) => p.site))];
  const steps = [...new Set(points.map((p) => p.labelled))].sort((a, b) => a - b);
  const series = [
    { name: 'global model alone', colour: '#555', pick: (p: CustomerPoint, a: CustomerAccount) => p.accounts[a].global },
    { name: "with the account's correction", colour: '#1b7837', pick: (p: CustomerPoint, a: CustomerAccount) => p.accounts[a].corrected },
    ...(alt === undefined
      ? []
      : [
          {
            name: alt.name,
            colour: '#2166ac',
            // The same site and step under the other settings.
            pick: (p: CustomerPoint, a: CustomerAccount) => twin(alt.points, p).accounts[a].corrected,
          },
        ]),
  ];
  const W = 360;
  const H = 220;
  const pad = { l: 48, r: 12, t: 40, b: 36 };
  const x = (n: number) =>
    pad.l + ((Math.log(n) - Math.log(steps[0]!)) / (Math.log(steps.at(-1)!) - Math.log(steps[0]!) || 1)) * (W - pad.l - pad.r);
  const at = (a: CustomerAccount, metric: 'f1' | 'fpr') =>
    series.map((s) => steps.map((n) => [n, mean(points.filter((p) => p.labelled === n).map((p) => s.pick(p, a)[metric]))] as const));
  const all = (metric: 'f1' | 'fpr') =>
    ACCOUNTS.flatMap((a) =>
      at(a, metric)
        .flat()
        .map(([, v]) => v),
    );
  const f1lo = Math.max(0, Math.floor(Math.min(...all('f1')) * 10) / 10);
  const fprhi = Math.max(0.02, Math.ceil(Math.max(...all('fpr')) * 50) / 50);
  const panel = (
    ox: number,
    oy: number,
    title: string,
    a: CustomerAccount,
    metric: 'f1' | 'fpr',
    lo: number,
    hi: number,
    fmt: (v: number) => string,
  ) => {
    const y = (v: number) => pad.t + (1 - (v - lo) / (hi - lo)) * (H - pad.t - pad.b);
    const out = [`<g transform="translate(${ox},${oy})">`, `<text x="${W / 2}" y="30" text-anchor="middle">${title}</text>`];
    out.push(...panelAxes({ W, H, pad, steps, x }, y, lo, hi, fmt));
    at(a, metric).forEach((pts, i) => out.push(...seriesMarks({ W, H, pad, steps, x }, y, series[i]!, pts, fmt)));
    out.push('</g>');
    return out.join('\n');
  };
  const rows = ACCOUNTS.map((a, r) =>
    [
      `<text x="${W}" y="${r * H + 16}" text-anchor="middle" font-weight="bold">${ROW_TITLE[a]}</text>`,
      panel(0, r * H, `F1 on the later comments (mean of ${sites.length} sites)`, a, 'f1', f1lo, 1, (v) => v.toFixed(2)),
      panel(W, r * H, 'legitimate comments flagged (mean)', a, 'fpr', 0, fprhi, (v) => `${(100 * v).toFixed(1)}%`),
    ].join('\n'),
  );
  const legend = legendSvg(series, pad.l, 2 * H + 14);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${2 * H + 40}" font-family="sans-serif" font-size="11">`,
    '<rect width="100%" height="100%" fill="white"/>',
    ...rows,
    legend,
    '</svg>',
    '',
  ].join('\n');
}
