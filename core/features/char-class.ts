/** Separator: spaces, punctuation, control characters. */
export const SEP = 0;
/** Letter, mark or digit of a script that separates words with spaces. */
export const WORD = 1;
/** Letter of a script written without spaces (CJK, Thai, ...): words are taken as character bigrams. */
export const NOSPACE = 2;
/** Symbol or emoji half (surrogate): a token of its own. */
export const SYMBOL = 3;

// One table built at start-up makes classification O(1) per code unit, exact for the BMP.
const table = new Uint8Array(65536);
const letterOrNumber = /[\p{L}\p{M}\p{N}]/u;
const noSpaceScript =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
const symbol = /[\p{S}]/u;
for (let c = 0; c < 65536; c++) {
  if (c >= 0xd800 && c <= 0xdfff) {
    table[c] = SYMBOL;
    continue;
  }
  const ch = String.fromCharCode(c);
  if (noSpaceScript.test(ch)) table[c] = NOSPACE;
  else if (letterOrNumber.test(ch)) table[c] = WORD;
  else if (c >= 0x80 && symbol.test(ch)) table[c] = SYMBOL;
  else table[c] = SEP;
}
// The prolonged sound mark and iteration marks belong to Japanese words.
table[0x30fc] = NOSPACE;
table[0x3005] = NOSPACE;

export const CHAR_CLASS = table;

// Letters with an upper- and a lower-case form: the share of capitals is measured over these alone, so Chinese,
// Arabic or Hindi text is neither "no capitals" nor "shouting". Only the blocks that hold case pairs in the BMP are
// tried (all of them: the rest of the BMP has none), which keeps start-up under a millisecond. Georgian has case
// pairs in Unicode but is written without capitals (those forms are for all-caps titles), so it counts as caseless.
const cased = new Uint8Array(65536);
const CASED_BLOCKS = [
  [0, 0x590],
  [0x13a0, 0x1400],
  [0x1c80, 0x1c90],
  [0x1d00, 0x2000],
  [0x2100, 0x2190],
  [0x24b6, 0x24ea],
  [0x2c00, 0x2d00],
  [0xa640, 0xa800],
  [0xab30, 0xabc0],
  [0xfb00, 0xfb18],
  [0xff21, 0xff5b],
] as const;
for (const [from, to] of CASED_BLOCKS) {
  for (let c = from; c < to; c++) {
    const ch = String.fromCharCode(c);
    if (ch.toUpperCase() !== ch.toLowerCase()) cased[c] = 1;
  }
}

export const CASED = cased;

/**
 * The class of text[i], or -1 (equal to no class) outside the text, where `CHAR_CLASS[text.charCodeAt(i)]` reads
 * undefined: the same answer to every comparison with a class, without an out-of-bounds read, which makes optimized
 * code give up and fall back to generic calls for that line for good. Feature spans may end one past the text (the
 * virtual space after it closes the last character n-gram), so the reasoning's loops over them read there.
 */
export function classAt(text: string, i: number): number {
  return i >= 0 && i < text.length ? (table[text.charCodeAt(i)] as number) : -1;
}

/** Whether text[start, end) holds a letter of a script written without spaces. */
export function hasNoSpaceChar(text: string, start = 0, end = text.length): boolean {
  // Past the text there is no letter (a span may end one past it): stop there instead of reading out of bounds.
  const stop = Math.min(end, text.length);
  for (let i = start; i < stop; i++) if (table[text.charCodeAt(i)] === NOSPACE) return true;
  return false;
}

/** Script buckets used for the script-mix signal. */
export const SCRIPT_NAMES = ['latin', 'cyrillic', 'greek', 'arabic', 'hebrew', 'cjk', 'hangul', 'indic', 'thai', 'other'] as const;

export function scriptBit(code: number): number {
  if (code < 0x80) return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a ? 1 : 0;
  if (code < 0x250) return 1; // Latin-1 supplement and extended Latin
  if (code >= 0x370 && code < 0x400) return 1 << 2;
  if (code >= 0x400 && code < 0x530) return 1 << 1;
  if (code >= 0x590 && code < 0x600) return 1 << 4;
  if (code >= 0x600 && code < 0x700) return 1 << 3;
  if (code >= 0x900 && code < 0xe00) return 1 << 7;
  if (code >= 0xe00 && code < 0xe80) return 1 << 8;
  if ((code >= 0x3040 && code < 0x3100) || (code >= 0x3400 && code < 0xa000) || (code >= 0xf900 && code < 0xfb00)) return 1 << 5;
  if (code >= 0xac00 && code < 0xd7b0) return 1 << 6;
  if (code >= 0x1e00 && code < 0x1f00) return 1;
  return 1 << 9;
}
