import { FNV_OFFSET, hashString } from '../../../core/features/hash.ts';
import { searchWords } from './words.ts';

/**
 * A locality-sensitive fingerprint of a submission (MinHash over its words, with LSH bands): two submissions written
 * from one template, with names, numbers, addresses and links varied, share at least one band with high probability,
 * and their signatures agree in most places; two messages written apart share a band rarely and their signatures
 * agree in few places. Computed once per item at intake from the words search already reads (text/words.ts: the same
 * normalised, bounded words), so its cost is bounded by MAX_WORDS_PER_ITEM whatever the submission's size.
 */

/** MinHash values per signature: BANDS bands of ROWS rows each. */
export const BANDS = 16;
export const ROWS = 4;
export const SIGNATURE_SIZE = BANDS * ROWS;
/**
 * How many of the SIGNATURE_SIZE values two signatures must share to be grouped: an estimate of the Jaccard similarity
 * of their word sets (and word pairs) of at least this / SIGNATURE_SIZE. Band collisions only nominate a candidate; this
 * decides, so the false-merge rate is that of the estimate, not of the bands (docs/review.md, "Similar submissions").
 */
export const MIN_SHARED = 32;

/**
 * Fewest distinct words (numbers and addresses aside) a submission needs for a fingerprint: a short note ("Order 123:
 * where is it?") says too little to tell a template from a coincidence, and a name with an address says nothing.
 */
export const MIN_WORDS = 6;

const DIGIT = /\p{N}/u;

/**
 * The tokens a template keeps when its blanks are filled: a word with a digit (a number, an order id, a port) is `#`,
 * an address is `@`, and one of its parts (the words of an address, also in the words) is dropped along with it.
 */
function templateTokens(words: readonly string[]): string[] {
  const out: string[] = [];
  const inAddress = new Set<string>();
  for (const w of words) {
    if (w.includes('@')) {
      out.push('@');
      for (const part of w.split(/[@.]/)) inAddress.add(part);
    }
  }
  for (const w of words) {
    if (w.includes('@') || inAddress.has(w)) continue;
    out.push(DIGIT.test(w) ? '#' : w);
  }
  return out;
}

/** The extractor's FNV-1a, unsigned: stable across instances (no randomness), as fingerprints must agree everywhere. */
function fnv1a(text: string, seed = FNV_OFFSET): number {
  return hashString(text, seed) >>> 0;
}

/** MurmurHash3's finaliser: spreads a 32-bit value so that each seed acts as an independent hash function. */
function mix(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

const SEEDS: readonly number[] = Array.from({ length: SIGNATURE_SIZE }, (_, i) => mix(0x9e3779b9 + i * 0x7f4a7c15));

export interface NearPrint {
  /** SIGNATURE_SIZE values, each 8 hex digits: what two submissions' similarity is estimated from. */
  readonly signature: string;
  /** BANDS keys (`<band>:<hex>`), each the hash of one band of the signature and the form: candidates share one. */
  readonly bands: readonly string[];
}

/**
 * The fingerprint of a submission's words, or undefined when it has fewer than MIN_WORDS to tell a template by. The
 * shingles are the template tokens and each pair of
 * neighbours among them, so two texts with the same words in a different order share the words but not the pairs.
 */
export function nearPrintOfWords(formId: string, words: readonly string[]): NearPrint | undefined {
  const tokens = templateTokens(words);
  if (tokens.filter((t) => t !== '#' && t !== '@').length < MIN_WORDS) return undefined;
  const shingles = new Set<number>();
  for (let i = 0; i < tokens.length; i++) {
    shingles.add(fnv1a(tokens[i] as string));
    if (i + 1 < tokens.length) shingles.add(fnv1a(`${tokens[i] as string} ${tokens[i + 1] as string}`));
  }
  const mins = new Array<number>(SIGNATURE_SIZE).fill(0xffffffff);
  for (const s of shingles)
    for (let j = 0; j < SIGNATURE_SIZE; j++) {
      const v = mix(s ^ (SEEDS[j] as number));
      if (v < (mins[j] as number)) mins[j] = v;
    }
  const hex = mins.map((v) => v.toString(16).padStart(8, '0'));
  const form = fnv1a(formId).toString(16).padStart(8, '0');
  const bands: string[] = [];
  for (let b = 0; b < BANDS; b++) bands.push(`${b}:${fnv1a(hex.slice(b * ROWS, (b + 1) * ROWS).join(''), fnv1a(form)).toString(16)}`);
  return { signature: hex.join(''), bands };
}

/** The fingerprint of a submission's fields (its search words: e-mail fields first, honeypots left out). */
export function nearPrint(formId: string, fields: Record<string, unknown>): NearPrint | undefined {
  return nearPrintOfWords(formId, searchWords(fields));
}

/** How many signature values two signatures share (0..SIGNATURE_SIZE); store/lua/near-ingest.lua counts the same. */
export function sharedValues(a: string, b: string): number {
  let n = 0;
  for (let i = 0; i < SIGNATURE_SIZE; i++) if (a.slice(i * 8, i * 8 + 8) === b.slice(i * 8, i * 8 + 8)) n++;
  return n;
}
