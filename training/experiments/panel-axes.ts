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
