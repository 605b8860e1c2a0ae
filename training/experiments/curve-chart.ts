import type { BinaryMetrics } from '../../core/classifier/manifest.ts';
import { legendSvg, panelAxes, seriesMarks } from './panel-svg.ts';

/** One site after N labels: the global model alone, and with the correction (or retrained) where measured. */
export interface ChartPoint {
  readonly site: string;
  readonly labelled: number;
  readonly global: BinaryMetrics;
  readonly corrected?: BinaryMetrics;
  readonly retrained?: BinaryMetrics;
}

interface Series {
  readonly name: string;
  readonly colour: string;
  readonly pick: (p: ChartPoint) => { f1: number; fpr: number } | undefined;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * The learning curve as an SVG: mean F1 (left) and mean false-positive rate (right) over the sites measured at each
 * step, for the global model alone, the per-account correction and (where measured) the retrained model.
 */
export function renderCurveSvg(points: readonly ChartPoint[], correction: string): string {
  const sites = [...new Set(points.map((p) => p.site))];
  const steps = [...new Set(points.map((p) => p.labelled))].sort((a, b) => a - b);
  const candidates: Series[] = [
    { name: 'global model alone', colour: '#555', pick: (p) => p.global },
    { name: `per-account correction (${correction})`, colour: '#1b7837', pick: (p) => p.corrected },
    { name: 'global model retrained with the labels', colour: '#b2182b', pick: (p) => p.retrained },
  ];
  // A series with no measured point (the retrained model where it was not retrained) stays out of the legend too.
  const series = candidates.filter((s) => points.some((p) => s.pick(p)));
  const W = 360;
  const H = 220;
  const pad = { l: 48, r: 12, t: 28, b: 36 };
  const x = (n: number) =>
    pad.l + ((Math.log(n) - Math.log(steps[0]!)) / (Math.log(steps.at(-1)!) - Math.log(steps[0]!) || 1)) * (W - pad.l - pad.r);
  const panel = (ox: number, title: string, metric: 'f1' | 'fpr', lo: number, hi: number, fmt: (v: number) => string) => {
    const y = (v: number) => pad.t + (1 - (v - lo) / (hi - lo)) * (H - pad.t - pad.b);
    const out: string[] = [
      `<g transform="translate(${ox},0)">`,
      `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${title}</text>`,
    ];
    out.push(...panelAxes({ W, H, pad, steps, x }, y, lo, hi, fmt));
    for (const s of series) {
      const pts = steps
        .map((n) => {
          const vals = points
            .filter((p) => p.labelled === n)
            .map((p) => s.pick(p))
            .filter((m) => !!m);
          return vals.length ? ([n, mean(vals.map((m) => m![metric]))] as const) : null;
        })
        .filter((p): p is readonly [number, number] => p !== null);
      out.push(...seriesMarks({ W, H, pad, steps, x }, y, s, pts, fmt));
    }
    out.push('</g>');
    return out.join('\n');
  };
  const all = (metric: 'f1' | 'fpr') =>
    points.flatMap((p) => series.map((s) => s.pick(p)?.[metric]).filter((v): v is number => v !== undefined));
  const f1s = all('f1');
  const fprs = all('fpr');
  const f1lo = Math.max(0, Math.floor(Math.min(...f1s) * 10) / 10);
  const fprhi = Math.max(0.02, Math.ceil(Math.max(...fprs) * 50) / 50);
  const legend = legendSvg(series, pad.l, H + 14);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 50}" font-family="sans-serif" font-size="11">`,
    '<rect width="100%" height="100%" fill="white"/>',
    panel(0, `F1 on the rest of the site (mean of ${sites.length} sites)`, 'f1', f1lo, 1, (v) => v.toFixed(2)),
    panel(W, 'legitimate items flagged (mean)', 'fpr', 0, fprhi, (v) => `${(100 * v).toFixed(1)}%`),
    legend,
    '</svg>',
    '',
  ].join('\n');
}
