import { CHAR_CLASS, WORD, scriptBit } from './char-class.ts';
import { hashStep } from './hash.ts';
import { isStopword, stem } from './stem.ts';

/** What a word token determines by itself, as bits of a table record (computed once per distinct token). */
export const TOKEN_STOP = 1;
/** ASCII path: a Latin word of 6+ letters (and fewer than 2 digits). */
export const TOKEN_LONG_LATIN = 2;
/** ASCII path: vowel-less, consonant-run or keyboard-walk gibberish. */
export const TOKEN_GIBBERISH = 4;
/** Non-ASCII path: Latin mixed with Cyrillic or Greek inside the word. */
export const TOKEN_MIXED_SCRIPT = 8;
/** Non-ASCII path: a Cyrillic keyboard walk (фывапролд). */
export const TOKEN_CYRILLIC_MASH = 16;

// One 32-byte record per token, so a lookup touches one cache line: objects and their typed arrays cost a
// pointer chase each, and the lookup was the extractor's most expensive line.
const STRIDE = 8;
const R_HASH = 0; // FNV of the token's own characters, computed by the caller while scanning
const R_LEN = 1; // the token's length; 0 marks an empty record
const R_RAW = 2; // pool offset of the token's characters
const R_STEM = 3; // pool offset of the stem's code units, ASCII digits folded to '0'
const R_STEM_LEN = 4;
const R_FLAGS = 5;
const R_WORD = 6; // the stem hashed in the message-word namespace
const R_HEAD = 7; // the stem hashed as a bigram's first word, with the separating space

/**
 * Distinct tokens and what they determine, looked up by the FNV hash of a token's characters and checked
 * against its stored characters: no slice and no string hashing per word, only on a first sighting.
 * Bounded: at half load (or a full character pool) it starts again.
 */
export class TokenTable {
  private readonly records: Int32Array;
  private readonly pool: Uint16Array;
  private readonly tokens: (string | undefined)[];
  private readonly shift: number;
  private readonly mask: number;
  private used = 0;
  private poolUsed = 0;

  constructor(
    private readonly wordSeed: number,
    private readonly bigramSeed: number,
    bits = 15,
  ) {
    const size = 1 << bits;
    this.records = new Int32Array(size * STRIDE);
    // Tokens average under 8 code units; a full pool empties the table like a full table does.
    this.pool = new Uint16Array(size * 8);
    this.tokens = new Array<string | undefined>(size).fill(undefined);
    this.shift = 32 - bits;
    this.mask = size - 1;
  }

  /** The record of text[start, end), whose FNV hash from FNV_OFFSET is `hash`; valid until the next lookup. */
  lookup(text: string, start: number, end: number, hash: number): number {
    const r = this.records;
    const len = end - start;
    let pos = Math.imul(hash, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const b = pos * STRIDE;
      const l = r[b + R_LEN] as number;
      if (l === 0) return this.insert(text, start, end, hash, pos);
      if (l === len && r[b + R_HASH] === hash && this.sameText(r[b + R_RAW] as number, text, start, len)) return b;
      pos = (pos + 1) & this.mask;
    }
  }

  flags(b: number): number {
    return this.records[b + R_FLAGS] as number;
  }

  wordHash(b: number): number {
    return this.records[b + R_WORD] as number;
  }

  bigramHead(b: number): number {
    return this.records[b + R_HEAD] as number;
  }

  /** FNV-1a over the stem's code units, continuing from `h`: the same value as hashRange over the stem's text. */
  stemHash(b: number, h: number): number {
    const p = this.pool;
    const off = this.records[b + R_STEM] as number;
    const end = off + (this.records[b + R_STEM_LEN] as number);
    for (let i = off; i < end; i++) h = hashStep(h, p[i] as number);
    return h;
  }

  token(b: number): string {
    return this.tokens[b / STRIDE] ?? '';
  }

  private sameText(off: number, text: string, start: number, len: number): boolean {
    const p = this.pool;
    for (let i = 0; i < len; i++) if (p[off + i] !== text.charCodeAt(start + i)) return false;
    return true;
  }

  private insert(text: string, start: number, end: number, hash: number, pos: number): number {
    const token = text.slice(start, end);
    const s = stem(token);
    const len = end - start;
    if ((this.used + 1) * 2 > this.tokens.length || this.poolUsed + len + s.length > this.pool.length) {
      this.records.fill(0);
      this.tokens.fill(undefined);
      this.used = 0;
      this.poolUsed = 0;
      return this.lookup(text, start, end, hash);
    }
    const p = this.pool;
    const raw = this.poolUsed;
    for (let i = 0; i < len; i++) p[raw + i] = token.charCodeAt(i);
    let stemOff = raw;
    if (s !== token || hasDigit(token)) {
      stemOff = raw + len;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        p[stemOff + i] = c >= 0x30 && c <= 0x39 ? 0x30 : c;
      }
      this.poolUsed = stemOff + s.length;
    } else this.poolUsed = raw + len;
    const b = pos * STRIDE;
    const r = this.records;
    r[b + R_HASH] = hash;
    r[b + R_LEN] = len;
    r[b + R_RAW] = raw;
    r[b + R_STEM] = stemOff;
    r[b + R_STEM_LEN] = s.length;
    r[b + R_FLAGS] = tokenFlags(token);
    r[b + R_WORD] = this.stemHash(b, this.wordSeed);
    r[b + R_HEAD] = hashStep(this.stemHash(b, this.bigramSeed), 0x20);
    this.tokens[pos] = token;
    this.used++;
    return b;
  }
}

function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) return true;
  }
  return false;
}

function tokenFlags(token: string): number {
  const latin = latinChecks(token);
  const scripts = scriptMask(token);
  return (
    (isStopword(token) ? TOKEN_STOP : 0) |
    (latin.longLatin ? TOKEN_LONG_LATIN : 0) |
    (latin.gibberish ? TOKEN_GIBBERISH : 0) |
    (mixedScript(scripts) ? TOKEN_MIXED_SCRIPT : 0) |
    (cyrillicMash(token, scripts) ? TOKEN_CYRILLIC_MASH : 0)
  );
}

function latinChecks(token: string): { longLatin: boolean; gibberish: boolean } {
  let vowels = 0;
  let letters = 0;
  let cons = 0;
  let maxCons = 0;
  let digits = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    if (c < 0x61 || c > 0x7a) {
      cons = 0;
      continue;
    }
    letters++;
    if (c === 0x61 || c === 0x65 || c === 0x69 || c === 0x6f || c === 0x75 || c === 0x79) {
      vowels++;
      cons = 0;
    } else if (++cons > maxCons) maxCons = cons;
  }
  // Order numbers and tracking codes mix letters and digits; they are not gibberish.
  if (letters < 6 || digits >= 2) return { longLatin: false, gibberish: false };
  return { longLatin: true, gibberish: maxCons >= 6 || vowels * 6 < letters || keyboardWalk(token, LATIN_KEYS) };
}

function scriptMask(token: string): number {
  let mask = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (CHAR_CLASS[c] === WORD && !(c >= 0x30 && c <= 0x39)) mask |= c < 0x80 ? 1 : scriptBit(c);
  }
  return mask;
}

// Latin mixed with Cyrillic or Greek inside one word is the look-alike trick (pаypal with a Cyrillic а).
function mixedScript(scripts: number): boolean {
  return (scripts & 1) !== 0 && (scripts & 0b110) !== 0;
}

// A Cyrillic word typed along a keyboard row (фывапролд) is a mash, not a word.
function cyrillicMash(token: string, scripts: number): boolean {
  return token.length >= 6 && scripts === 0b10 && keyboardWalk(token, CYRILLIC_KEYS);
}

// Keyboard rows (QWERTY and ЙЦУКЕН), as row * 16 + column per letter.
const LATIN_KEYS = keyTable(['qwertyuiop', 'asdfghjkl', 'zxcvbnm']);
const CYRILLIC_KEYS = keyTable(['йцукенгшщзхъ', 'фывапролджэ', 'ячсмитьбю']);

function keyTable(rows: readonly string[]): Map<number, number> {
  const m = new Map<number, number>();
  rows.forEach((row, r) => {
    for (let i = 0; i < row.length; i++) m.set(row.charCodeAt(i), r * 16 + i);
  });
  return m;
}

/** A word typed by running a finger along a row (asdasd, kjhsdf, фывапролд): most letter pairs are neighbour keys. */
function keyboardWalk(token: string, keys: Map<number, number>): boolean {
  let pairs = 0;
  let neighbours = 0;
  let prev = -1;
  for (let i = 0; i < token.length; i++) {
    const k = keys.get(token.charCodeAt(i));
    if (k === undefined) return false;
    if (prev !== -1) {
      pairs++;
      if (Math.abs(k - prev) === 1) neighbours++;
    }
    prev = k;
  }
  return pairs >= 5 && neighbours * 5 >= pairs * 4;
}
