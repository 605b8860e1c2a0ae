import { createHash } from 'node:crypto';
import { hashString } from '../../core/features/hash.ts';
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

/** The shares the pipeline trains with (out-of-fold over train + validation, test scored once). */
export const DEFAULT_SPLIT = { validation: 0.15, test: 0.15 } as const;

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

/** How a record's side is decided; recorded in each manifest, so a later run can tell what a model trained on. */
export const SPLIT_RULE = 'sha256-text';
/** The rule before SPLIT_RULE: a seeded shuffle of the whole data set, which adding a record re-drew. */
export const LEGACY_SPLIT_RULE = 'seeded-shuffle';

/** A text's identity in a model's list of what it trained on: 64 bits of the SHA-256 of its normalised text. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The side of one text: a function of the text (normalised) and the seed alone, so adding or removing other records
 * never moves it, and a text repeated anywhere lands on the same side.
 */
export function sideOf(text: string, opts: SplitOptions): 'train' | 'validation' | 'test' {
  const u = createHash('sha256').update(`${opts.seed}\u0000${text}`).digest().readUInt32BE(0) / 2 ** 32;
  return u < opts.test ? 'test' : u < opts.test + opts.validation ? 'validation' : 'train';
}

/** Each normalised text once, with the record kept for it (see `overrides`), and what was dropped. */
export interface Deduplicated {
  readonly kept: Map<string, LabelledRecord>;
  readonly duplicates: number;
  readonly conflicts: number;
  readonly labelsContradictingData: number;
}

export function deduplicate(records: readonly LabelledRecord[]): Deduplicated {
  const kept = new Map<string, LabelledRecord>();
  let duplicates = 0;
  let conflicts = 0;
  let labelsContradictingData = 0;
  for (const r of records) {
    const key = normalizedText(r.fields);
    const first = kept.get(key);
    if (!first) {
      kept.set(key, r);
      continue;
    }
    duplicates++;
    if (first.label !== r.label) conflicts++;
    if (overrides(r, first)) {
      if (first.label !== r.label && first.labelledAt === undefined) labelsContradictingData++;
      kept.set(key, r);
    }
  }
  return { kept, duplicates, conflicts, labelsContradictingData };
}

/**
 * Deterministic, by unique normalised text: each text is kept once and its side is `sideOf` it, so no text is on
 * both sides and adding data never moves a record from test into training. Not stratified: each source and label
 * gets its share of each side up to chance (about ±1.5 points on a few hundred texts).
 */
export function splitRecords(records: readonly LabelledRecord[], opts: SplitOptions): Split {
  const { kept, duplicates, conflicts, labelsContradictingData } = deduplicate(records);
  const sides = { train: [] as LabelledRecord[], validation: [] as LabelledRecord[], test: [] as LabelledRecord[] };
  // Sorted by text: the order of each side does not depend on file order either.
  for (const text of [...kept.keys()].sort()) sides[sideOf(text, opts)].push(kept.get(text) as LabelledRecord);
  return { ...sides, duplicates, conflicts, labelsContradictingData };
}

/**
 * The split models exported before SPLIT_RULE were trained on (LEGACY_SPLIT_RULE): stratified by (source, label),
 * each stratum sorted by text and shuffled with the seed. Kept only to tell which records such a model trained on.
 */
export function legacySplitRecords(records: readonly LabelledRecord[], opts: SplitOptions): Split {
  const { kept, duplicates, conflicts, labelsContradictingData } = deduplicate(records);
  const strata = new Map<string, [string, LabelledRecord][]>();
  for (const [text, r] of kept) {
    const k = `${r.source}\u0000${r.label}`;
    const list = strata.get(k);
    if (list) list.push([text, r]);
    else strata.set(k, [[text, r]]);
  }
  const train: LabelledRecord[] = [];
  const validation: LabelledRecord[] = [];
  const test: LabelledRecord[] = [];
  for (const key of [...strata.keys()].sort()) {
    const list = (strata.get(key) as [string, LabelledRecord][])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, r]) => r);
    shuffleInPlace(list, seededRandom(opts.seed ^ hashString(key)));
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

