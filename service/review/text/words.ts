import { createHash } from 'node:crypto';
import { flattenFields } from '../../../core/features/flatten.ts';
import type { FormFields } from '../../../core/features/form-fields.ts';

/** Distinct words indexed per submission: enough for a long message, bounded so one paste cannot flood the index. */
export const MAX_WORDS_PER_ITEM = 80;
/** Words of a search query; every one must match. */
export const MAX_QUERY_WORDS = 5;

const WORD = /[\p{L}\p{N}]+/gu;
const EMAIL = /[^\s@<>()[\]"',;:]+@[^\s@<>()[\]"',;:]+\.[\p{L}]{2,}/gu;
const MARKS = /\p{M}+/gu;

/** Lower case, compatibility forms folded, accents dropped: "Ünïcode" and "unicode" are one word. */
function normalise(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').normalize('NFKC').toLowerCase();
}

/** The words of a text (2 to 40 characters), and each e-mail address whole. */
export function wordsOf(text: string, out: Set<string> = new Set()): Set<string> {
  const t = normalise(text);
  for (const m of t.matchAll(EMAIL)) if (m[0].length <= 254) out.add(m[0]);
  for (const m of t.matchAll(WORD)) if (m[0].length >= 2 && m[0].length <= 40) out.add(m[0]);
  return out;
}

/** What a submission is found by: the words of its fields (e-mail fields first, then the rest), honeypots left out. */
export function searchWords(fields: Record<string, unknown>): string[] {
  const texts = flattenFields(fields as FormFields).filter((f) => f.role !== 'honeypot');
  texts.sort((a, b) => Number(b.role === 'email') - Number(a.role === 'email'));
  const words = new Set<string>();
  for (const f of texts) {
    wordsOf(f.text, words);
    if (words.size >= MAX_WORDS_PER_ITEM) break;
  }
  return [...words].slice(0, MAX_WORDS_PER_ITEM);
}

/**
 * The words a query asks for: an address is looked up whole, anything else by its words. Undefined when the query
 * holds none (punctuation only, or one-letter words).
 */
export function queryWords(query: string): string[] | undefined {
  const words = new Set<string>();
  const t = normalise(query);
  for (const m of t.matchAll(EMAIL)) words.add(m[0]);
  for (const m of t.replace(EMAIL, ' ').matchAll(WORD)) if (m[0].length >= 2 && m[0].length <= 40) words.add(m[0]);
  return words.size === 0 ? undefined : [...words].slice(0, MAX_QUERY_WORDS);
}

/**
 * Recent words' hashes: most words of one submission were in earlier ones, and a SHA-256 each was a visible cost in
 * Redis mode (every verified submission's words are indexed for search). Held in this process's memory only.
 */
const hashes = new Map<string, string>();
const MAX_CACHED_WORDS = 20_000;

/** A word's key suffix: its hash, so no submitted word or address is visible in a Redis key name. */
export function wordHash(word: string): string {
  let h = hashes.get(word);
  if (h === undefined) {
    h = createHash('sha256').update(word).digest('base64url').slice(0, 16);
    // Emptied when full rather than kept in order: a bound on memory, at the price of a cold start now and then.
    if (hashes.size >= MAX_CACHED_WORDS) hashes.clear();
    hashes.set(word, h);
  }
  return h;
}
