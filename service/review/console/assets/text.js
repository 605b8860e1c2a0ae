// How submitted text, times and the model's scores read on screen.

// Bidirectional controls (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI) reorder what follows them on screen: a
// submitted "\u202Egnp.exe" shows as "exe.png". They are shown as what they are, so the text on screen is the
// text that was sent; every submitted string goes through here.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
export function visible(text) {
  return String(text).replace(BIDI_CONTROLS, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase()}⟧`);
}

export function preview(fields) {
  for (const v of Object.values(fields)) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (s && s.trim()) return visible(s.trim().slice(0, 140));
  }
  return '(no fields)';
}

// With its time zone: moderators in several zones read one queue.
export function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
      });
}

// The number shown is the model's spam probability, whatever its verdict: "spam 0.72". Two decimals, except at
// the ends, where rounding would claim a certainty the model did not give ("spam > 0.99" rather than "1.00").
export function spamProbability(verdict) {
  return verdict.status === 'spam' ? verdict.confidence : 1 - verdict.confidence;
}
export function spamScore(verdict) {
  const p = spamProbability(verdict);
  if (p > 0.99 && p < 1) return 'spam > 0.99';
  if (p < 0.01 && p > 0) return 'spam < 0.01';
  return `spam ${p.toFixed(2)}`;
}

export function disagrees(item) {
  return Boolean(item.shadow) && item.shadow.status !== item.verdict.status;
}
