import { CHAR_CLASS, NOSPACE, SEP } from './char-class.ts';
import { STRUCTURE_FIELD, type Features } from './extract.ts';
import { KIND } from './kinds.ts';

/** Text a person would recognise for feature `slot`: the word (or words) it came from. */
export function surfaceOf(f: Features, slot: number): string {
  const field = f.fields[slot] as number;
  if (field === STRUCTURE_FIELD) return f.structure[f.starts[slot] as number] ?? '';
  const text = f.texts[field] ?? '';
  let start = f.starts[slot] as number;
  let end = f.ends[slot] as number;
  const kind = f.kinds[slot];
  if (kind === KIND.domain || kind === KIND.emailDomain) {
    const host = text.slice(start, end);
    return host.includes('.') ? host : `.${host}`;
  }
  // Scripts without spaces have no word to expand to: the n-gram itself is the best name.
  if (kind === KIND.char && !hasNoSpaceChar(text, start, end)) {
    // An n-gram is named by the word(s) it lies in, so reasoning quotes words, not fragments.
    while (start > 0 && CHAR_CLASS[text.charCodeAt(start - 1)] !== SEP) start--;
    while (start < end && CHAR_CLASS[text.charCodeAt(start)] === SEP) start++;
    while (end < text.length && CHAR_CLASS[text.charCodeAt(end)] !== SEP) end++;
    while (end > start && CHAR_CLASS[text.charCodeAt(end - 1)] === SEP) end--;
  }
  const s = text.slice(start, end).trim();
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function hasNoSpaceChar(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (CHAR_CLASS[text.charCodeAt(i)] === NOSPACE) return true;
  return false;
}
