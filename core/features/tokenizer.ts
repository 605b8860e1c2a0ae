import { CHAR_CLASS, NOSPACE, SYMBOL, WORD } from './char-class.ts';
import { FNV_OFFSET, hashRange, hashStep, hashString } from './hash.ts';
import { KIND } from './kinds.ts';
import type { FieldRole } from './roles.ts';
import type { ScanState } from './scan-state.ts';
import { TOKEN_CYRILLIC_MASH, TOKEN_GIBBERISH, TOKEN_LONG_LATIN, TOKEN_MIXED_SCRIPT, TOKEN_STOP, TokenTable } from './token-info.ts';

const NS_WORD = hashString('w|');
const NS_BIGRAM = hashString('b|');
const NS_OPENING = hashString('b|^ ');
const NS_ROLE: Record<FieldRole, number> = {
  name: hashString('r|name|'),
  email: hashString('r|email|'),
  url: hashString('r|url|'),
  message: hashString('r|message|'),
  honeypot: hashString('r|honeypot|'),
  other: hashString('r|other|'),
};
const LONG_TOKEN = '<long>';
const LONG_TOKEN_HASH = hashString(LONG_TOKEN);

/** The token table `scanTokens` expects: words and bigram heads hashed in the namespaces it reads. */
export function newTokenTable(): TokenTable {
  return new TokenTable(NS_WORD, NS_BIGRAM);
}

/**
 * Word tokens (stemmed), bigrams of neighbours, CJK-style character bigrams, symbols. Message text gives word
 * features; any other role gives role-tagged tokens (`r|email|…`), without bigrams.
 */
export function scanTokens(s: ScanState, lower: string, fi: number, role: FieldRole): void {
  const n = lower.length;
  const tagged = role !== 'message';
  if (tagged && !s.settings.roleTokens) return;
  const ns = tagged ? NS_ROLE[role] : NS_WORD;
  const kind = tagged ? KIND.role : KIND.word;
  const bigrams = !tagged && s.settings.wordBigrams;
  const f = s.facts;
  const acc = s.acc;
  const maxTokenLength = s.settings.maxTokenLength;
  let hasPrev = false;
  let prevHead = 0;
  let prevStop = false;
  let prevStart = 0;
  let singleLetters = 0;
  let opening = s.settings.openingWords === true;
  const t = s.tokens;
  let i = 0;
  while (i < n) {
    const c = lower.charCodeAt(i);
    const cls = CHAR_CLASS[c] as number;
    if (cls === WORD) {
      const start = i;
      let nonAscii = false;
      let th = hashStep(FNV_OFFSET, c);
      i++;
      for (; i < n; i++) {
        const d = lower.charCodeAt(i);
        if (CHAR_CLASS[d] === WORD) {
          if (d > 0x7f) nonAscii = true;
        } else if ((d === 0x27 || d === 0x2019) && i + 1 < n && CHAR_CLASS[lower.charCodeAt(i + 1)] === WORD) {
          th = hashStep(th, d);
          continue;
        } else break;
        th = hashStep(th, d);
      }
      if (c > 0x7f) nonAscii = true;
      const len = i - start;
      if (role === 'name') f.nameTokens++;
      singleLetters = len === 1 && !(c >= 0x30 && c <= 0x39) ? singleLetters + 1 : 0;
      if (singleLetters >= 4) f.spacedLetters = true;
      const long = len > maxTokenLength;
      const rec = long ? t.lookup(LONG_TOKEN, 0, LONG_TOKEN.length, LONG_TOKEN_HASH) : t.lookup(lower, start, i, th);
      const flags = t.flags(rec);
      if (nonAscii) {
        if ((flags & TOKEN_MIXED_SCRIPT) !== 0) f.mixedScriptWords++;
        if ((flags & TOKEN_CYRILLIC_MASH) !== 0) gibberish(s, t.token(rec));
      } else if (len >= 6 && role !== 'email' && role !== 'url' && (flags & TOKEN_LONG_LATIN) !== 0) {
        f.longLatinWords++;
        if ((flags & TOKEN_GIBBERISH) !== 0) gibberish(s, t.token(rec));
      }
      acc.add(tagged ? t.stemHash(rec, ns) : t.wordHash(rec), kind, fi, start, i);
      // The word a message opens with, as a pair with the message's start ("Dear …", "Hello, …", "Subscribe …").
      if (opening && bigrams) acc.add(t.stemHash(rec, NS_OPENING), KIND.bigram, fi, start, i);
      opening = false;
      if (bigrams) {
        const stop = (flags & TOKEN_STOP) !== 0;
        if (hasPrev && !(stop && prevStop)) acc.add(t.stemHash(rec, prevHead), KIND.bigram, fi, prevStart, i);
        hasPrev = true;
        prevHead = t.bigramHead(rec);
        prevStop = stop;
        prevStart = start;
      }
    } else if (cls === NOSPACE) {
      const start = i;
      while (i < n && CHAR_CLASS[lower.charCodeAt(i)] === NOSPACE) i++;
      f.nameTokens += role === 'name' ? 1 : 0;
      if (i - start === 1) acc.add(hashRange(lower, start, i, ns), kind, fi, start, i);
      for (let k = start; k + 2 <= i; k++) acc.add(hashRange(lower, k, k + 2, ns), kind, fi, k, k + 2);
      hasPrev = false;
      singleLetters = 0;
    } else if (cls === SYMBOL) {
      const start = i;
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
      acc.add(hashRange(lower, start, i, ns), tagged ? kind : KIND.symbol, fi, start, i);
    } else {
      i++;
      if (c !== 0x20 && c !== 0x27) {
        hasPrev = false;
        singleLetters = 0;
      }
    }
  }
}

function gibberish(s: ScanState, token: string): void {
  s.facts.gibberishWords++;
  if (s.facts.gibberishExamples.length < 3) s.facts.gibberishExamples.push(token);
}
