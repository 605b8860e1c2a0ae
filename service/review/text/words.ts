import { flattenFields } from '../../../core/features/flatten.ts';
import type { FormFields } from '../../../core/features/form-fields.ts';

/** Distinct words kept per submission: enough for a long message, bounded so one paste cannot flood the search text. */
export const MAX_WORDS_PER_ITEM = 80;
/** Words of a search query; every one must match. */
export const MAX_QUERY_WORDS = 5;
/** Characters of one submission read for its words: a bound on each pass, whatever the body limit lets through. */
export const MAX_SCAN_CHARS = 32 * 1024;
/** The longest word kept (a longer run of letters is no word anyone searches for) and the longest address. */
const MAX_WORD = 40;
const MAX_EMAIL = 254;

// Single character classes: each match is one run, so these scan the text once (no backtracking).
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const LETTER = /^\p{L}$/u;

// A character past ASCII: without one, nothing decomposes, composes or is a mark, so normalise is lower-casing alone.
const NOT_ASCII = /[\u0080-\uffff]/;

/** Lower case, compatibility forms folded, accents dropped: "Ünïcode" and "unicode" are one word. */
function normalise(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARKS, '').normalize('NFKC').toLowerCase();
}

/** What ends an address: white space and the punctuation that surrounds one in text (`<a@b.c>`, `"a@b.c",`). */
function isEmailStop(c: string): boolean {
  return (
    c === '<' ||
    c === '>' ||
    c === '(' ||
    c === ')' ||
    c === '[' ||
    c === ']' ||
    c === '"' ||
    c === "'" ||
    c === ',' ||
    c === ';' ||
    c === ':' ||
    /\s/.test(c)
  );
}

/**
 * The e-mail addresses in a text, each whole: `local@domain.tld` with a top-level part of two letters or more. One pass
 * over the text (a regular expression for this is quadratic on a long run without `@` or spaces): split into runs
 * between stop characters, each run into parts at `@`; a part and the one after it form an address when the second
 * holds a `.` followed by two letters.
 */
export function emailsOf(text: string, out: (email: string) => void): void {
  // No address without an '@' (most fields): one indexOf instead of a look at every character.
  if (!text.includes('@')) return;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isEmailStop(text[i] as string)) continue;
    if (i > start) emailsOfRun(text, start, i, out);
    start = i + 1;
  }
}

function emailsOfRun(text: string, from: number, to: number, out: (email: string) => void): void {
  // A run without '@' (the common case, and the one that made the old pattern slow) costs one indexOf.
  let at = text.indexOf('@', from);
  let localStart = from;
  while (at !== -1 && at < to) {
    const next = text.indexOf('@', at + 1);
    const partEnd = next === -1 || next > to ? to : next;
    const end = at > localStart ? domainEnd(text, at + 1, partEnd) : -1;
    if (end !== -1) {
      if (end - localStart <= MAX_EMAIL) out(text.slice(localStart, end));
      // What follows the address in this part may start the next one.
      localStart = end;
    } else localStart = at + 1;
    at = next === -1 || next > to ? -1 : next;
  }
}

/** Where the domain starting at `from` ends (its last `.` followed by two letters, and every letter after): -1 without one. */
function domainEnd(text: string, from: number, to: number): number {
  for (let dot = to - 3; dot > from; dot--) {
    if (text[dot] !== '.' || !isLetter(text, dot + 1) || !isLetter(text, dot + 2)) continue;
    let end = dot + 3;
    while (end < to && isLetter(text, end)) end++;
    return end;
  }
  return -1;
}

function isLetter(text: string, i: number): boolean {
  return LETTER.test(text[i] as string);
}

/** The words of a text (2 to 40 characters), and each e-mail address whole. */
export function wordsOf(text: string, out: Set<string> = new Set()): Set<string> {
  const t = normalise(text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text);
  emailsOf(t, (e) => out.add(e));
  for (const m of t.matchAll(WORD)) if (m[0].length >= 2 && m[0].length <= MAX_WORD) out.add(m[0]);
  return out;
}

/**
 * What a submission is found by: the words of its fields (e-mail fields first, then the rest), honeypots left out;
 * at most MAX_WORDS_PER_ITEM, from at most MAX_SCAN_CHARS of its text.
 */
export function searchWords(fields: Record<string, unknown>): string[] {
  const texts = flattenFields(fields as FormFields).filter((f) => f.role !== 'honeypot');
  texts.sort((a, b) => Number(b.role === 'email') - Number(a.role === 'email'));
  const words = new Set<string>();
  let budget = MAX_SCAN_CHARS;
  for (const f of texts) {
    if (budget <= 0) break;
    wordsOf(f.text.length > budget ? f.text.slice(0, budget) : f.text, words);
    budget -= f.text.length;
    if (words.size >= MAX_WORDS_PER_ITEM) break;
  }
  return [...words].slice(0, MAX_WORDS_PER_ITEM);
}

/**
 * A submission's words as the search scans them (store/lua/search.lua): one string, each word between spaces, so a
 * query word matches a whole word with a plain substring find. Words hold no space (letters, digits, an address).
 */
export function searchText(words: readonly string[]): string {
  return words.length === 0 ? ' ' : ` ${words.join(' ')} `;
}

/**
 * The words a query asks for: an address is looked up whole, anything else by its words. Undefined when the query
 * holds none (punctuation only, or one-letter words).
 */
export function queryWords(query: string): string[] | undefined {
  const words = new Set<string>();
  const t = normalise(query.slice(0, 1024));
  const emails: string[] = [];
  emailsOf(t, (e) => emails.push(e));
  for (const e of emails) words.add(e);
  let rest = t;
  for (const e of emails) rest = rest.split(e).join(' ');
  for (const m of rest.matchAll(WORD)) if (m[0].length >= 2 && m[0].length <= MAX_WORD) words.add(m[0]);
  return words.size === 0 ? undefined : [...words].slice(0, MAX_QUERY_WORDS);
}
