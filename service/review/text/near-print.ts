import { Buffer } from 'node:buffer';
import { FNV_OFFSET, hashStep, hashString } from '../../../core/features/hash.ts';
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

/** Whether a word holds a number character (\p{N}): a loop over its code units, the pattern only for one past ASCII. */
function hasDigit(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) return true;
    if (c >= 0x80) return DIGIT.test(word);
  }
  return false;
}

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
    out.push(hasDigit(w) ? '#' : w);
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

const SEEDS = Int32Array.from({ length: SIGNATURE_SIZE }, (_, i) => mix(0x9e3779b9 + i * 0x7f4a7c15));
/** The character codes of the hex digits, and the signature's digits as bytes (one at a time: the function is synchronous). */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const SIGNATURE_DIGITS = Buffer.alloc(SIGNATURE_SIZE * 8);
/** The space between the two words of a pair shingle (hashed as `${a} ${b}` was). */
const SPACE = 0x20;

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
 * Each signature value is the least of mix(shingle ^ seed) over the shingles (MinHash): computed seed by seed over an
 * array of the shingles' hashes (a repeated shingle changes no minimum), with each pair's hash continued from its first
 * word's instead of hashing the joined text again. The values are those of the plain definition, bit for bit
 * (test/service/review/text/near-print.test.ts compares them), as stored signatures from before must still match.
 */
export function nearPrintOfWords(formId: string, words: readonly string[]): NearPrint | undefined {
  const tokens = templateTokens(words);
  if (tokens.filter((t) => t !== '#' && t !== '@').length < MIN_WORDS) return undefined;
  const n = tokens.length;
  const shingles = new Int32Array(2 * n - 1);
  let k = 0;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const h = hashString(tokens[i] as string);
    shingles[k++] = h;
    if (i > 0) shingles[k++] = hashString(tokens[i] as string, hashStep(previous, SPACE));
    previous = h;
  }
  // The signature's hex digits are written as bytes (8 a value) and both the signature and the bands' hashes read
  // from them: the same text as joining each value's 8 hex digits, without making 64 small strings.
  const digits = SIGNATURE_DIGITS;
  for (let j = 0; j < SIGNATURE_SIZE; j++) {
    const seed = SEEDS[j] as number;
    // Unsigned order as signed order of the values with their top bit flipped: the loop stays in 32-bit integers.
    let min = 0x7fffffff;
    for (let i = 0; i < k; i++) {
      let h = (shingles[i] as number) ^ seed;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h = h ^ (h >>> 16) ^ 0x80000000;
      if (h < min) min = h;
    }
    let v = min ^ 0x80000000;
    for (let d = 7; d >= 0; d--) {
      digits[j * 8 + d] = HEX_CODES[v & 15] as number;
      v >>>= 4;
    }
  }
  const form = fnv1a(fnv1a(formId).toString(16).padStart(8, '0'));
  const bands: string[] = [];
  const perBand = ROWS * 8;
  for (let b = 0; b < BANDS; b++) {
    let h = form;
    for (let i = b * perBand; i < (b + 1) * perBand; i++) h = hashStep(h, digits[i] as number);
    bands.push(`${b}:${(h >>> 0).toString(16)}`);
  }
  return { signature: digits.toString('latin1'), bands };
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
