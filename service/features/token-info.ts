import { CHAR_CLASS, WORD, scriptBit } from './char-class.ts';
import { hashStep } from './hash.ts';
import { isStopword, stem } from './stem.ts';

/** Everything a word token determines by itself, computed once per distinct token. */
export interface TokenInfo {
  readonly token: string;
  /** The token's own code units, to recognise it in a text without slicing the text. */
  readonly raw: Uint16Array;
  /** The stem's UTF-16 code units, ASCII digits folded to '0': what every stem hash reads. */
  readonly codes: Uint16Array;
  readonly stop: boolean;
  /** ASCII path: a Latin word of 6+ letters (and fewer than 2 digits). */
  readonly longLatin: boolean;
  /** ASCII path: vowel-less, consonant-run or keyboard-walk gibberish. */
  readonly gibberish: boolean;
  /** Non-ASCII path: Latin mixed with Cyrillic or Greek inside the word. */
  readonly mixedScript: boolean;
  /** Non-ASCII path: a Cyrillic keyboard walk (фывапролд). */
  readonly cyrillicMash: boolean;
}

// Tokens arrive as slices, cons strings, one- and two-byte strings: per-character loops over them hit V8's
// megamorphic property path. Reading each distinct token once, into typed arrays, keeps the hot loops monomorphic.
const MEMO_LIMIT = 50_000;
const memo = new Map<string, TokenInfo>();

export function tokenInfo(token: string): TokenInfo {
  const hit = memo.get(token);
  if (hit !== undefined) return hit;
  const info = computeInfo(token);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(token, info);
  return info;
}

/**
 * Token infos looked up by the FNV hash of a token's characters, computed while the text is scanned and checked
 * against the stored code units: no slice and no string hashing per word, only on a first sighting.
 */
export class TokenCache {
  private hashes = new Int32Array(1 << 14);
  private infos: (TokenInfo | undefined)[] = new Array(1 << 14).fill(undefined);
  private used = 0;

  get(text: string, start: number, end: number, hash: number): TokenInfo {
    const mask = this.hashes.length - 1;
    let pos = Math.imul(hash, 0x9e3779b1) >>> 18;
    for (;;) {
      const info = this.infos[pos];
      if (info === undefined) break;
      if (this.hashes[pos] === hash && sameText(info.raw, text, start, end)) return info;
      pos = (pos + 1) & mask;
    }
    const info = tokenInfo(text.slice(start, end));
    // Bounded like the memo behind it: full at half load, it starts again.
    if (this.used * 2 >= this.hashes.length) {
      this.infos.fill(undefined);
      this.used = 0;
      return this.get(text, start, end, hash);
    }
    this.hashes[pos] = hash;
    this.infos[pos] = info;
    this.used++;
    return info;
  }
}

function sameText(raw: Uint16Array, text: string, start: number, end: number): boolean {
  if (raw.length !== end - start) return false;
  for (let i = 0; i < raw.length; i++) if (raw[i] !== text.charCodeAt(start + i)) return false;
  return true;
}

/** FNV-1a over code units, continuing from `h`: the same value as hashRange over the stem's text. */
export function hashCodes(codes: Uint16Array, h: number): number {
  for (let i = 0; i < codes.length; i++) h = hashStep(h, codes[i] as number);
  return h;
}

function computeInfo(token: string): TokenInfo {
  const s = stem(token);
  const codes = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    codes[i] = c >= 0x30 && c <= 0x39 ? 0x30 : c;
  }
  const latin = latinChecks(token);
  const raw = new Uint16Array(token.length);
  for (let i = 0; i < token.length; i++) raw[i] = token.charCodeAt(i);
  return {
    token,
    raw,
    codes,
    stop: isStopword(token),
    longLatin: latin.longLatin,
    gibberish: latin.gibberish,
    mixedScript: mixedScript(token),
    cyrillicMash: cyrillicMash(token),
  };
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
function mixedScript(token: string): boolean {
  const mask = scriptMask(token);
  return (mask & 1) !== 0 && (mask & 0b110) !== 0;
}

// A Cyrillic word typed along a keyboard row (фывапролд) is a mash, not a word.
function cyrillicMash(token: string): boolean {
  return token.length >= 6 && scriptMask(token) === 0b10 && keyboardWalk(token, CYRILLIC_KEYS);
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
