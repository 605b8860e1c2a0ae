import { classAt, hasNoSpaceChar, SEP } from './char-class.ts';
import { STRUCTURE_FIELD, type Features } from './extract.ts';
import { KIND } from './kinds.ts';
import { BRACKETED_DOTS } from './obfuscated-links.ts';

/** The stretch of a field's text that names a feature: [start, end) in `f.texts[field]`. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Where the name of feature `slot` lies in its field's text: the word (or words) it came from. Structure
 * features have no span (their name is their id); `surfaceOf` gives the text itself.
 */
export function surfaceSpan(f: Features, slot: number, span: Span): void {
  let start = f.starts[slot] as number;
  let end = f.ends[slot] as number;
  const field = f.fields[slot] as number;
  // Scripts without spaces have no word to expand to: the n-gram itself is the best name.
  if (field !== STRUCTURE_FIELD && f.kinds[slot] === KIND.char) {
    const text = f.texts[field] ?? '';
    if (!hasNoSpaceChar(text, start, end)) {
      // An n-gram is named by the word(s) it lies in, so reasoning quotes words, not fragments.
      while (start > 0 && classAt(text, start - 1) !== SEP) start--;
      while (start < end && classAt(text, start) === SEP) start++;
      while (end < text.length && classAt(text, end) !== SEP) end++;
      while (end > start && classAt(text, end - 1) === SEP) end--;
    }
  }
  span.start = start;
  span.end = end;
}

/** The name of feature `slot` whose span `surfaceSpan` gave: equal spans of one kind give equal names. */
export function surfaceText(f: Features, slot: number, span: Span): string {
  const field = f.fields[slot] as number;
  if (field === STRUCTURE_FIELD) return f.structure[span.start] ?? '';
  const text = f.texts[field] ?? '';
  const kind = f.kinds[slot];
  if (kind === KIND.domain || kind === KIND.emailDomain) {
    // A domain spelled to dodge filters ("site dot com", "site [dot] com", "site . com") is named as it resolves.
    const host = text.slice(span.start, span.end).replace(SPELLED_DOT, '.');
    return host.includes('.') ? host : `.${host}`;
  }
  // A word pair across a line break is quoted on one line.
  const s = text.slice(span.start, span.end).trim().replace(LINE_SPACE, ' ');
  if (s.length <= 40) return s;
  // Never cut an emoji in half: a lone surrogate is not text (and JSON encoders escape it).
  const cut = isHighSurrogate(s.charCodeAt(36)) ? 36 : 37;
  return `${s.slice(0, cut)}...`;
}

const LINE_SPACE = /\s*[\n\r\t]\s*/g;

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

// The separators obfuscated-links.ts reads as a dot: " dot ", its bracketed spellings, and a dot with spaces around it.
const SPELLED_DOT = new RegExp(
  ['\\s+dot\\s+', ...BRACKETED_DOTS.map((d) => `\\s*${d.replace(/[[\]()]/g, '\\$&')}\\s*`), '\\s*\\.\\s*'].join('|'),
  'g',
);

const scratch: Span = { start: 0, end: 0 };

/** Text a person would recognise for feature `slot`: the word (or words) it came from. */
export function surfaceOf(f: Features, slot: number): string {
  surfaceSpan(f, slot, scratch);
  return surfaceText(f, slot, scratch);
}
