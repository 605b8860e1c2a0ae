import { CASED, CHAR_CLASS, NOSPACE, SEP, WORD, scriptBit } from './char-class.ts';
import { hashStep, hashString } from './hash.ts';
import { KIND } from './kinds.ts';
import { hostRun, isHostChar } from './link-heuristics.ts';
import type { FieldRole } from './roles.ts';
import type { ScanState } from './scan-state.ts';

const NS_CHAR = hashString('c|');

/**
 * Character statistics, links and emails, and character n-grams, in one pass over a field: `text` as sent,
 * `lower` its lower case of the same length, `fi` its index among the flattened fields.
 */
export function scanChars(s: ScanState, text: string, lower: string, fi: number, role: FieldRole): void {
  const f = s.facts;
  const acc = s.acc;
  const textual = isTextual(role);
  const sameLength = text.length === lower.length;
  const n = lower.length;
  s.linkEnd = 0;
  if (role === 'message') {
    f.messageChars += n;
    f.messageFields++;
  }
  // A boolean for certain: `a && b` may be either operand, and optimized code tested it as any value per character.
  const doNgrams = s.settings.charNgrams === true && textual;
  const sizes = s.charNgramSizes;
  // The settings every model since revision 9 uses: one size, 4, added without the loop over sizes per character.
  const only4 = sizes.length === 1 && sizes[0] === 4;
  // The tables in locals: a module variable is read from the module's context and checked on every use.
  const classes = CHAR_CLASS;
  const casedTable = CASED;
  // Counters live in locals for the loop and are written back once: property stores per character cost more.
  let digits = 0,
    letters = 0,
    cased = 0,
    upper = 0,
    symbols = 0,
    scripts = 0,
    markupLinks = 0,
    nospace = 0;
  let maxRepeat = f.maxRepeat;
  // The virtual space before the text is the first character of every window.
  let g1 = hashStep(NS_CHAR, 0x20);
  let g2 = g1,
    g3 = g1,
    g4 = g1,
    g5 = g1;
  let p0 = 0,
    p1 = 0,
    p2 = 0,
    p3 = 0,
    p4 = 0;
  // The virtual space before the text counts as seen; one after it closes the last word.
  let seen = 1;
  let lastWasSpace = true;
  let run = 0;
  let prev = -1;
  let hostStart = -1;
  let hostDot = false;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? lower.charCodeAt(i) : 0x20;
    const cls = i < n ? (classes[c] as number) : SEP;
    if (i < n && textual) {
      if (cls === WORD || cls === NOSPACE) {
        if (c >= 0x30 && c <= 0x39) digits++;
        else {
          letters++;
          if (cls === NOSPACE) nospace++;
          if (casedTable[c] === 1) {
            cased++;
            if (sameLength && text.charCodeAt(i) !== c) upper++;
          }
          scripts |= c < 0x80 ? 1 : scriptBit(c);
        }
      } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        symbols++;
      }
      run = c === prev ? run + 1 : 1;
      if (run > maxRepeat && c !== 0x20) maxRepeat = run;
      prev = c;
      if ((c === 0x3c || c === 0x5b || c === 0x5d) && isMarkupLink(lower, i)) markupLinks++;
      if (c === 0x7b && !f.template && isTemplate(lower, i)) f.template = true;
    }
    // A run of host-name characters is checked for a link or an email where it ends.
    const isHost = i < n && isHostChar(c);
    if (isHost) {
      if (hostStart < 0) hostStart = i;
      if (c === 0x2e) hostDot = true;
    } else if (hostStart >= 0) {
      // A run without a dot is a plain word: it can be neither a link nor an email domain.
      if (hostDot) hostRun(s, text, lower, hostStart, i, fi, role);
      hostStart = -1;
      hostDot = false;
    }
    if (!doNgrams) continue;
    let code: number;
    if (cls === SEP) {
      if (lastWasSpace) continue;
      code = 0x20;
      lastWasSpace = true;
    } else {
      code = c >= 0x30 && c <= 0x39 ? 0x30 : c;
      lastWasSpace = false;
    }
    // The hash of the last k characters extends the hash of the last k-1 (FNV is a left fold), so every
    // n-gram size costs one multiply per character; p0..p4 remember where those characters were.
    g5 = hashStep(g4, code);
    g4 = hashStep(g3, code);
    g3 = hashStep(g2, code);
    g2 = hashStep(g1, code);
    g1 = hashStep(NS_CHAR, code);
    p0 = p1;
    p1 = p2;
    p2 = p3;
    p3 = p4;
    p4 = i;
    seen++;
    if (only4) {
      if (seen >= 4) acc.add(g4, KIND.char, fi, p1, i + 1);
      continue;
    }
    // Sizes go in settings order, which fixes the slot order.
    for (let k = 0; k < sizes.length; k++) {
      const size = sizes[k] as number;
      if (seen < size) continue;
      if (size === 3) acc.add(g3, KIND.char, fi, p2, i + 1);
      else if (size === 4) acc.add(g4, KIND.char, fi, p1, i + 1);
      else if (size === 1) acc.add(g1, KIND.char, fi, p4, i + 1);
      else if (size === 2) acc.add(g2, KIND.char, fi, p3, i + 1);
      else acc.add(g5, KIND.char, fi, p0, i + 1);
    }
  }
  // A character of a script written without spaces carries about a word: it counts three times here.
  if (role === 'message') f.messageNonSpace += digits + letters + symbols + 2 * nospace;
  f.digits += digits;
  f.letters += letters;
  f.cased += cased;
  f.upper += upper;
  f.symbols += symbols;
  f.scripts |= scripts;
  f.markupLinks += markupLinks;
  f.maxRepeat = maxRepeat;
}

// Roles whose text is prose: character statistics, n-grams and obfuscated links are read there.
export function isTextual(role: FieldRole): boolean {
  return role === 'message' || role === 'other' || role === 'name';
}

// `<a href`, `[url=`, `[link=` and markdown `](http` are how link-dropping bots format links.
function isMarkupLink(lower: string, i: number): boolean {
  const c = lower.charCodeAt(i);
  if (c === 0x3c) return lower.startsWith('<a ', i) || lower.startsWith('<a\n', i);
  if (c === 0x5b) return lower.startsWith('[url', i) || lower.startsWith('[link', i);
  return lower.startsWith('](http', i);
}

// `{$FIRSTNAME}` placeholders and `{Hello|Hi|Hey}` spintax: text a bot sent before filling in its template.
function isTemplate(lower: string, i: number): boolean {
  const end = Math.min(lower.length, i + 60);
  if (lower.charCodeAt(i + 1) === 0x24) return lower.indexOf('}', i) > i + 2;
  for (let j = i + 1; j < end; j++) {
    const c = lower.charCodeAt(j);
    if (c === 0x7c) return j > i + 1;
    if (c === 0x7d || c === 0x7b || c === 0x0a || c === 0x22 || c === 0x3a) return false;
  }
  return false;
}
