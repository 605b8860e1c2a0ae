export interface PanelFrame {
  readonly W: number;
  readonly H: number;
  readonly pad: { readonly l: number; readonly r: number; readonly t: number; readonly b: number };
  readonly steps: readonly number[];
  readonly x: (n: number) => number;
}

/** A learning-curve panel's SVG grid: five value lines from lo to hi with their labels, and the labels-given ticks. */
export function panelAxes(f: PanelFrame, y: (v: number) => number, lo: number, hi: number, fmt: (v: number) => string): string[] {
  const { W, H, pad } = f;
  const out: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    out.push(
      `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text x="${pad.l - 4}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
    );
  }
  for (const n of f.steps) out.push(`<text x="${f.x(n)}" y="${H - pad.b + 16}" text-anchor="middle">${n}</text>`);
  out.push(`<text x="${W / 2}" y="${H - 4}" text-anchor="middle">labels given (log scale)</text>`);
  return out;
}

export interface PanelSeries {
  readonly name: string;
  readonly colour: string;
}

/** One series in a panel: its line (from two points on) and a dot per point, titled with its value. */
export function seriesMarks(
  f: PanelFrame,
  y: (v: number) => number,
  s: PanelSeries,
  pts: readonly (readonly [number, number])[],
  fmt: (v: number) => string,
): string[] {
  const at = (n: number, v: number) => [f.x(n).toFixed(1), y(v).toFixed(1)] as const;
  const out: string[] = [];
  if (pts.length > 1)
    out.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${pts.map(([n, v]) => at(n, v).join(',')).join(' ')}"/>`);
  for (const [n, v] of pts) {
    const [cx, cy] = at(n, v);
    out.push(`<circle cx="${cx}" cy="${cy}" r="3.5" fill="${s.colour}"><title>${s.name}, ${n} labels: ${fmt(v)}</title></circle>`);
  }
  return out;
}

/** The series' colours and names in a row below the panels. */
export function legendSvg(series: readonly PanelSeries[], left: number, top: number): string {
  return series
    .map(
      (s, i) =>
        `<g transform="translate(${left + i * 230},${top})"><rect width="12" height="12" fill="${s.colour}"/><text x="16" y="10">${s.name}</text></g>`,
    )
    .join('\n');
}
