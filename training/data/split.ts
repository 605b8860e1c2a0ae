import { seededRandom, shuffleInPlace } from './random.ts';
import type { LabelledRecord } from './record.ts';

export interface Split {
  readonly train: LabelledRecord[];
  readonly validation: LabelledRecord[];
  readonly test: LabelledRecord[];
  /** Records dropped as repeats of a text already kept (same normalized text). */
  readonly duplicates: number;
  /** Texts that occur with both labels; kept once, with the moderators' newest label if they labelled it, else the first. */
  readonly conflicts: number;
  /** Of those, moderators' labels that replaced a data record of the same text carrying the other label. */
  readonly labelsContradictingData: number;
}

export interface SplitOptions {
  readonly seed: number;
  readonly validation: number;
  readonly test: number;
}

/**
 * The text that decides "same submission": every string value, NFKC-normalized then lower-cased (NFKC can make
 * capitals: '№' -> 'No'), letters and digits only.
 * Field names are left out, so one message sent through two layouts is still one text.
 */
export function normalizedText(fields: Record<string, unknown>): string {
  const parts: string[] = [];
  collect(fields, parts);
  return parts.join(' ').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

function collect(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
  else if (Array.isArray(v)) v.forEach((x) => collect(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => collect(x, out));
}

/**
 * Deterministic, stratified by (source, label), by unique normalized text: each text is kept once and
 * lands in exactly one split, so no text is on both sides.
 */
export function splitRecords(records: readonly LabelledRecord[], opts: SplitOptions): Split {
  const seen = new Map<string, LabelledRecord>();
  let duplicates = 0;
  let conflicts = 0;
  let labelsContradictingData = 0;
  for (const r of records) {
    const key = normalizedText(r.fields);
    const kept = seen.get(key);
    if (!kept) {
      seen.set(key, r);
      continue;
    }
    duplicates++;
    if (kept.label !== r.label) conflicts++;
    if (overrides(r, kept)) {
      if (kept.label !== r.label && kept.labelledAt === undefined) labelsContradictingData++;
      seen.set(key, r);
    }
  }
  const strata = new Map<string, [string, LabelledRecord][]>();
  for (const [text, r] of seen) {
    const k = `${r.source}\u0000${r.label}`;
    const list = strata.get(k);
    if (list) list.push([text, r]);
    else strata.set(k, [[text, r]]);
  }
  const train: LabelledRecord[] = [];
  const validation: LabelledRecord[] = [];
  const test: LabelledRecord[] = [];
  for (const key of [...strata.keys()].sort()) {
    // Sorted by text before the seeded shuffle: the split depends on the texts and the seed, not on file order.
    const list = (strata.get(key) as [string, LabelledRecord][])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, r]) => r);
    shuffleInPlace(list, seededRandom(opts.seed ^ hashKey(key)));
    const nTest = Math.round(list.length * opts.test);
    const nVal = Math.round(list.length * opts.validation);
    test.push(...list.slice(0, nTest));
    validation.push(...list.slice(nTest, nTest + nVal));
    train.push(...list.slice(nTest + nVal));
  }
  return { train, validation, test, duplicates, conflicts, labelsContradictingData };
}

/**
 * A moderator's label is the newest word on a text: it replaces a public or hand-written record of the same text, and
 * a later label replaces an earlier one (two submissions can carry one text). Otherwise the first occurrence stays.
 */
function overrides(r: LabelledRecord, kept: LabelledRecord): boolean {
  if (r.labelledAt === undefined) return false;
  return kept.labelledAt === undefined || Date.parse(r.labelledAt) >= Date.parse(kept.labelledAt);
}

function hashKey(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
