import type { FormFields } from './form-fields.ts';
import { CASED, CHAR_CLASS, NOSPACE, SEP, SYMBOL, WORD, scriptBit } from './char-class.ts';
import { emptyFacts, noteLinkHost, type Facts } from './facts.ts';
import { fairShares } from './fair-shares.ts';
import { flattenFields, type FieldText } from './flatten.ts';
import { FNV_OFFSET, hashRange, hashStep, hashString } from './hash.ts';
import { GROUP_COUNT, GROUP_OF_KIND, KIND } from './kinds.ts';
import { DISPOSABLE_EMAIL_DOMAINS, LINK_TLDS, URL_SHORTENERS } from './lists.ts';
import type { FieldRole } from './roles.ts';
import { featureVersion, type FeatureSettings } from './settings.ts';
import { TOKEN_CYRILLIC_MASH, TOKEN_GIBBERISH, TOKEN_LONG_LATIN, TOKEN_MIXED_SCRIPT, TOKEN_STOP, TokenTable } from './token-info.ts';
import { structureIds } from './structure.ts';

const NS_WORD = hashString('w|');
const NS_BIGRAM = hashString('b|');
const NS_OPENING = hashString('b|^ ');
const NS_CHAR = hashString('c|');
const NS_STRUCT = hashString('s|');
const NS_DOMAIN = hashString('u|dom|');
const NS_TLD = hashString('u|tld|');
const NS_EMAIL_DOMAIN = hashString('e|dom|');
const NS_EMAIL_TLD = hashString('e|tld|');
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

// Structure ids are a small fixed vocabulary of constant strings: hash each once.
const STRUCTURE_HASHES = new Map<string, number>();
function structureHash(id: string): number {
  let h = STRUCTURE_HASHES.get(id);
  if (h === undefined) STRUCTURE_HASHES.set(id, (h = hashString(id, NS_STRUCT)));
  return h;
}

/** Field index marking a feature that points into `structure`, not into a field's text. */
export const STRUCTURE_FIELD = -1;

/**
 * The sparse feature vector of one submission, plus where each feature first occurred so the
 * reasoning can name it. A view into the extractor's buffers: valid until its next `extract`.
 */
export interface Features {
  readonly count: number;
  readonly indices: Int32Array;
  readonly values: Float32Array;
  readonly kinds: Uint8Array;
  /** Field index of the first occurrence, or STRUCTURE_FIELD. */
  readonly fields: Int32Array;
  /** Start/end in the lower-cased field text; for structure features, start indexes `structure`. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly texts: readonly string[];
  readonly roles: readonly FieldRole[];
  readonly structure: readonly string[];
  readonly facts: Facts;
}

/**
 * The one place that turns form fields into model input, for training and serving alike.
 * Not re-entrant: it reuses its buffers, so one instance serves one synchronous caller at a time.
 */
export class FeatureExtractor {
  readonly settings: FeatureSettings;
  readonly version: string;
  readonly dimension: number;
  private readonly shift: number;
  // Counts per feature live in a small open-addressing table (feature index + 1 -> slot) that stays in
  // cache; a dimension-sized scratch array was touched at random and evicted the model's weights.
  private tableKeys = new Int32Array(4096);
  private tableSlots = new Int32Array(4096);
  private tableShift = 32 - 12;
  private posOfSlot: Int32Array;
  private readonly norms = new Float64Array(GROUP_COUNT);
  private readonly tokens = new TokenTable(NS_WORD, NS_BIGRAM);
  private readonly indices: Int32Array;
  private readonly values: Float32Array;
  private readonly kinds: Uint8Array;
  private readonly fieldsOf: Int32Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private count = 0;
  private flat: FieldText[] = [];
  private texts: string[] = [];
  private roles: FieldRole[] = [];
  private facts: Facts = emptyFacts();
  /** End of the last link measured in the current field: links sharing one run of URL characters count once. */
  private linkEnd = 0;

  constructor(settings: FeatureSettings) {
    this.settings = settings;
    this.version = featureVersion(settings);
    this.dimension = 1 << settings.hashBits;
    this.shift = 32 - settings.hashBits;
    const d = this.dimension;
    this.posOfSlot = new Int32Array(d);
    this.indices = new Int32Array(d);
    this.values = new Float32Array(d);
    this.kinds = new Uint8Array(d);
    this.fieldsOf = new Int32Array(d);
    this.starts = new Int32Array(d);
    this.ends = new Int32Array(d);
  }

  extract(input: FormFields): Features {
    this.count = 0;
    this.facts = emptyFacts();
    const flat = flattenFields(input, this.flat, this.settings.maxChars);
    this.texts = [];
    this.roles = [];
    let total = 0;
    for (const f of flat) if (f.role !== 'honeypot') total += f.text.length;
    const shares = total > this.settings.maxChars ? fairShares(flat.map((f) => (f.role === 'honeypot' ? 0 : f.text.length)), this.settings.maxChars) : null;
    for (let fi = 0; fi < flat.length; fi++) {
      const field = flat[fi] as FieldText;
      this.roles.push(field.role);
      if (field.role === 'honeypot') {
        this.texts.push('');
        if (field.text.trim() !== '') this.facts.honeypot = 'filled';
        else if (this.facts.honeypot === 'none') this.facts.honeypot = 'empty';
        continue;
      }
      let text = field.text;
      const share = shares?.[fi];
      if (share !== undefined && text.length > share) {
        text = text.slice(0, share);
        this.facts.truncated = true;
      }
      const lower = lowerCase(text);
      this.texts.push(lower);
      if (lower.length === 0) continue;
      this.facts.fields++;
      this.scanChars(text, lower, fi, field.role);
      if (this.settings.obfuscatedLinks && (isTextual(field.role) || field.role === 'email')) this.scanObfuscatedLinks(lower, fi, field.role);
      this.scanTokens(lower, fi, field.role);
    }
    this.facts.repeatedFieldText = hasRepeatedText(flat, this.texts);
    const structure = this.settings.structure ? structureIds(this.facts) : [];
    for (let s = 0; s < structure.length; s++) {
      this.add(structureHash(structure[s] as string), KIND.structure, STRUCTURE_FIELD, s, s, true);
    }
    this.finish();
    return {
      count: this.count,
      indices: this.indices,
      values: this.values,
      kinds: this.kinds,
      fields: this.fieldsOf,
      starts: this.starts,
      ends: this.ends,
      texts: this.texts,
      roles: this.roles,
      structure,
      facts: this.facts,
    };
  }

  /** A copy that outlives the next `extract` (training keeps every example). */
  extractCopy(input: FormFields): { indices: Int32Array; values: Float32Array } {
    const f = this.extract(input);
    return { indices: f.indices.slice(0, f.count), values: f.values.slice(0, f.count) };
  }

  private add(h: number, kind: number, field: number, start: number, end: number, binary = false): void {
    const idx = h >>> this.shift;
    const keys = this.tableKeys;
    const mask = keys.length - 1;
    let pos = Math.imul(idx, 0x9e3779b1) >>> this.tableShift;
    for (;;) {
      const k = keys[pos] as number;
      if (k === idx + 1) {
        if (!binary) {
          const slot = this.tableSlots[pos] as number;
          this.values[slot] = (this.values[slot] as number) + 1;
        }
        return;
      }
      if (k === 0) break;
      pos = (pos + 1) & mask;
    }
    const slot = this.count++;
    keys[pos] = idx + 1;
    this.tableSlots[pos] = slot;
    this.posOfSlot[slot] = pos;
    this.indices[slot] = idx;
    this.values[slot] = 1;
    this.kinds[slot] = kind;
    this.fieldsOf[slot] = field;
    this.starts[slot] = start;
    this.ends[slot] = end;
    if (this.count * 2 > keys.length) this.growTable();
  }

  // Keeps the load factor under 1/2: a long submission doubles the table once or twice, then it stays.
  private growTable(): void {
    const size = this.tableKeys.length * 2;
    this.tableKeys = new Int32Array(size);
    this.tableSlots = new Int32Array(size);
    this.tableShift--;
    const mask = size - 1;
    for (let slot = 0; slot < this.count; slot++) {
      const idx = this.indices[slot] as number;
      let pos = Math.imul(idx, 0x9e3779b1) >>> this.tableShift;
      while (this.tableKeys[pos] !== 0) pos = (pos + 1) & mask;
      this.tableKeys[pos] = idx + 1;
      this.tableSlots[pos] = slot;
      this.posOfSlot[slot] = pos;
    }
  }

  // Counts become 1 + ln(count), then each group is scaled to unit length so long texts do not dominate.
  private finish(): void {
    const norms = this.norms;
    norms.fill(0);
    for (let s = 0; s < this.count; s++) {
      this.tableKeys[this.posOfSlot[s] as number] = 0;
      const g = GROUP_OF_KIND[this.kinds[s] as number] as number;
      const count = this.values[s] as number;
      // Most features occur once, and 1 + ln(1) is exactly 1: skip the logarithm for them.
      const v = g === 0 || count === 1 ? 1 : 1 + Math.log(count);
      this.values[s] = v;
      norms[g] = (norms[g] as number) + v * v;
    }
    const floor = this.settings.normFloor ?? 0;
    for (let g = 1; g < GROUP_COUNT; g++) norms[g] = norms[g]! > 0 ? 1 / Math.sqrt(Math.max(norms[g]!, floor)) : 0;
    for (let s = 0; s < this.count; s++) {
      const g = GROUP_OF_KIND[this.kinds[s] as number] as number;
      if (g !== 0) this.values[s] = (this.values[s] as number) * (norms[g] as number);
    }
  }

  /** Character statistics, links and emails, and character n-grams, in one pass. */
  private scanChars(text: string, lower: string, fi: number, role: FieldRole): void {
    const f = this.facts;
    const textual = isTextual(role);
    const sameLength = text.length === lower.length;
    const n = lower.length;
    this.linkEnd = 0;
    if (role === 'message') {
      f.messageChars += n;
      f.messageFields++;
    }
    const doNgrams = this.settings.charNgrams && textual;
    const sizes = this.settings.charNgramSizes;
    // Counters live in locals for the loop and are written back once: property stores per character cost more.
    let digits = 0, letters = 0, cased = 0, upper = 0, symbols = 0, scripts = 0, markupLinks = 0, nospace = 0;
    let maxRepeat = f.maxRepeat;
    // The virtual space before the text is the first character of every window.
    let g1 = hashStep(NS_CHAR, 0x20);
    let g2 = g1, g3 = g1, g4 = g1, g5 = g1;
    let p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0;
    // The virtual space before the text counts as seen; one after it closes the last word.
    let seen = 1;
    let lastWasSpace = true;
    let run = 0;
    let prev = -1;
    let hostStart = -1;
    let hostDot = false;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? lower.charCodeAt(i) : 0x20;
      const cls = i < n ? (CHAR_CLASS[c] as number) : SEP;
      if (i < n && textual) {
        if (cls === WORD || cls === NOSPACE) {
          if (c >= 0x30 && c <= 0x39) digits++;
          else {
            letters++;
            if (cls === NOSPACE) nospace++;
            if (CASED[c] === 1) {
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
        if (hostDot) this.hostRun(text, lower, hostStart, i, fi, role);
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
      g5 = hashStep(g4, code); g4 = hashStep(g3, code); g3 = hashStep(g2, code); g2 = hashStep(g1, code); g1 = hashStep(NS_CHAR, code);
      p0 = p1; p1 = p2; p2 = p3; p3 = p4; p4 = i;
      seen++;
      // Sizes go in settings order, which fixes the slot order.
      for (let k = 0; k < sizes.length; k++) {
        const size = sizes[k] as number;
        if (seen < size) continue;
        if (size === 3) this.add(g3, KIND.char, fi, p2, i + 1);
        else if (size === 4) this.add(g4, KIND.char, fi, p1, i + 1);
        else if (size === 1) this.add(g1, KIND.char, fi, p4, i + 1);
        else if (size === 2) this.add(g2, KIND.char, fi, p3, i + 1);
        else this.add(g5, KIND.char, fi, p0, i + 1);
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

  private hostRun(text: string, lower: string, start: number, end: number, fi: number, role: FieldRole): void {
    while (start < end && (lower.charCodeAt(start) === 0x2e || lower.charCodeAt(start) === 0x2d)) start++;
    while (end > start && (lower.charCodeAt(end - 1) === 0x2e || lower.charCodeAt(end - 1) === 0x2d)) end--;
    if (end - start < 3) return;
    const before = start > 0 ? lower.charCodeAt(start - 1) : 0;
    const after = end < lower.length ? lower.charCodeAt(end) : 0;
    if (after === 0x40) return; // local part of an email; the domain run follows
    let dot = end - 1;
    while (dot > start && lower.charCodeAt(dot) !== 0x2e) dot--;
    if (dot <= start || dot === end - 1) return;
    const f = this.facts;
    if (before === 0x40 || spelledAt(lower, start)) {
      // An email address ("name at site.com" spelled out too): its domain is a feature of its own.
      if (role === 'email') {
        this.emailDomain(lower, start, end, dot, fi);
      } else if (role === 'name') f.emailsInName++;
      else f.emailsInText++;
      return;
    }
    const scheme = start >= 3 && lower.startsWith('://', start - 3);
    const www = lower.startsWith('www.', start);
    if (!scheme && !www && !LINK_TLDS.has(lower.slice(dot + 1, end))) return;
    if (!scheme && !www && after !== 0x2f && joinsSentences(text, lower, dot, end)) return;
    let hostStart = www ? start + 4 : start;
    if (hostStart >= end) hostStart = start;
    const host = lower.slice(hostStart, end);
    if (role === 'name') f.linksInName++;
    else if (role !== 'url' && role !== 'email') {
      f.links++;
      noteLinkHost(f, host);
      if (this.settings.mostlyLinks && role === 'message' && start >= this.linkEnd) this.measureLink(lower, start, end);
    }
    if (URL_SHORTENERS.has(host)) f.shortener = host;
    if (!this.settings.structure) return;
    this.add(hashRange(lower, hostStart, end, NS_DOMAIN), KIND.domain, fi, hostStart, end, true);
    this.add(hashRange(lower, dot + 1, end, NS_TLD), KIND.domain, fi, dot + 1, end, true);
  }

  /**
   * Adds the length of the link around the host [start, end) (its scheme before and its path after, as far as
   * printable ASCII runs: Chinese, Japanese or Thai text runs on into a link without a space). Never scans back
   * past the last link measured, so a field packed with links costs one pass, not one per link.
   */
  private measureLink(lower: string, start: number, end: number): void {
    let a = start;
    while (a > this.linkEnd && isUrlChar(lower.charCodeAt(a - 1))) a--;
    let b = end;
    while (b < lower.length && isUrlChar(lower.charCodeAt(b))) b++;
    this.facts.messageLinkChars += b - a;
    this.linkEnd = b;
  }

  /**
   * Links spelled to dodge link filters: "site. com", "site .com/x", "site . com", "site dot com". Only
   * top-level domains that are not everyday words count, and the domain must not run on into a word.
   */
  private scanObfuscatedLinks(lower: string, fi: number, role: FieldRole): void {
    const n = lower.length;
    for (let at = lower.indexOf('.'); at >= 0; at = lower.indexOf('.', at + 1)) {
      let a = at, b = at + 1;
      while (a > 0 && lower.charCodeAt(a - 1) === 0x20 && at - a < 2) a--;
      while (b < n && lower.charCodeAt(b) === 0x20 && b - at - 1 < 2) b++;
      if (a === at && b === at + 1) continue; // a plain dot: hostRun's business
      // "word. Com…" is also how a sentence ends and the next begins ("com" is Portuguese for "with"):
      // a space after the dot alone counts only with a www. host or a path after the domain.
      this.obfuscatedAt(lower, a, b, fi, role, OBFUSCATED_TLDS, a === at);
    }
    for (let at = lower.indexOf(' dot '); at >= 0; at = lower.indexOf(' dot ', at + 1)) {
      this.obfuscatedAt(lower, at, at + 5, fi, role, OBFUSCATED_DOT_TLDS, false);
    }
    // "[dot]" and "(dot)", the bracketed spelling that "[at]" and "(at)" come with.
    for (const sep of BRACKETED_DOTS) {
      for (let at = lower.indexOf(sep); at >= 0; at = lower.indexOf(sep, at + 1)) {
        const a = at > 0 && lower.charCodeAt(at - 1) === 0x20 ? at - 1 : at;
        const b = lower.charCodeAt(at + sep.length) === 0x20 ? at + sep.length + 1 : at + sep.length;
        this.obfuscatedAt(lower, a, b, fi, role, OBFUSCATED_DOT_TLDS, false);
      }
    }
  }

  /** [a, b) is the separator ("  .  " or " dot "): a host must end at a and a known TLD start at b. */
  private obfuscatedAt(lower: string, a: number, b: number, fi: number, role: FieldRole, tlds: ReadonlySet<string>, sentenceLike: boolean): void {
    let hs = a;
    while (hs > 0 && isHostChar(lower.charCodeAt(hs - 1))) hs--;
    while (hs < a && (lower.charCodeAt(hs) === 0x2e || lower.charCodeAt(hs) === 0x2d)) hs++;
    if (a - hs < 2) return;
    let te = b;
    while (te < lower.length && lower.charCodeAt(te) >= 0x61 && lower.charCodeAt(te) <= 0x7a) te++;
    // The length first, before any slice: every sentence end gets here.
    if (te - b < TLD_MIN_LENGTH || te - b > TLD_MAX_LENGTH) return;
    if (te < lower.length && (CHAR_CLASS[lower.charCodeAt(te)] === WORD)) return;
    // "www.site. com": hostRun already counted www.site as a link.
    const counted = lower.startsWith('www.', hs);
    if (sentenceLike && !counted && lower.charCodeAt(te) !== 0x2f) return;
    if (!tlds.has(lower.slice(b, te))) return;
    const f = this.facts;
    if (role === 'email') {
      // An email field holds an address however it is spelled ("tom at mailinator dot com"): a domain, never a link,
      // checked against the disposable list as emailDomain checks a plain one.
      const domain = `${lower.slice(hs, a)}.${lower.slice(b, te)}`;
      if (DISPOSABLE_EMAIL_DOMAINS.has(domain)) f.disposableDomain = domain;
      this.spelledEmailDomain(lower, hs, a, b, te, fi);
      return;
    }
    if (!counted && (lower.charCodeAt(hs - 1) === 0x40 || spelledAt(lower, hs))) {
      // "tom dot hall at outlook dot com": an address spelled out so that harvesters miss it, not a link.
      if (role === 'name') f.emailsInName++;
      else f.emailsInText++;
      this.spelledEmailDomain(lower, hs, a, b, te, fi);
      return;
    }
    if (role === 'name') f.linksInName += counted ? 0 : 1;
    else {
      if (!counted) f.links++;
      f.obfuscatedLinks++;
      noteLinkHost(f, `${lower.slice(hs, a)}.${lower.slice(b, te)}`);
    }
    if (!this.settings.structure) return;
    this.add(hashRange(lower, b, te, hashStep(hashRange(lower, hs, a, NS_DOMAIN), 0x2e)), KIND.domain, fi, hs, te, true);
    this.add(hashRange(lower, b, te, NS_TLD), KIND.domain, fi, b, te, true);
  }

  /** The domain of an address spelled out as host [hs, a), separator [a, b), top-level domain [b, te). */
  private spelledEmailDomain(lower: string, hs: number, a: number, b: number, te: number, fi: number): void {
    if (!this.settings.structure) return;
    this.add(hashRange(lower, b, te, hashStep(hashRange(lower, hs, a, NS_EMAIL_DOMAIN), 0x2e)), KIND.emailDomain, fi, hs, te, true);
    this.add(hashRange(lower, b, te, NS_EMAIL_TLD), KIND.emailDomain, fi, b, te, true);
  }

  private emailDomain(lower: string, start: number, end: number, dot: number, fi: number): void {
    const domain = lower.slice(start, end);
    if (DISPOSABLE_EMAIL_DOMAINS.has(domain)) this.facts.disposableDomain = domain;
    if (!this.settings.structure) return;
    this.add(hashRange(lower, start, end, NS_EMAIL_DOMAIN), KIND.emailDomain, fi, start, end, true);
    this.add(hashRange(lower, dot + 1, end, NS_EMAIL_TLD), KIND.emailDomain, fi, dot + 1, end, true);
  }

  /** Word tokens (stemmed), bigrams of neighbours, CJK-style character bigrams, symbols. */
  private scanTokens(lower: string, fi: number, role: FieldRole): void {
    const n = lower.length;
    const tagged = role !== 'message';
    if (tagged && !this.settings.roleTokens) return;
    const ns = tagged ? NS_ROLE[role] : NS_WORD;
    const kind = tagged ? KIND.role : KIND.word;
    const bigrams = !tagged && this.settings.wordBigrams;
    const f = this.facts;
    let hasPrev = false;
    let prevHead = 0;
    let prevStop = false;
    let prevStart = 0;
    let singleLetters = 0;
    let opening = this.settings.openingWords === true;
    const t = this.tokens;
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
        const long = len > this.settings.maxTokenLength;
        const rec = long ? t.lookup(LONG_TOKEN, 0, LONG_TOKEN.length, LONG_TOKEN_HASH) : t.lookup(lower, start, i, th);
        const flags = t.flags(rec);
        if (nonAscii) {
          if ((flags & TOKEN_MIXED_SCRIPT) !== 0) f.mixedScriptWords++;
          if ((flags & TOKEN_CYRILLIC_MASH) !== 0) this.gibberish(t.token(rec));
        } else if (len >= 6 && role !== 'email' && role !== 'url' && (flags & TOKEN_LONG_LATIN) !== 0) {
          f.longLatinWords++;
          if ((flags & TOKEN_GIBBERISH) !== 0) this.gibberish(t.token(rec));
        }
        this.add(tagged ? t.stemHash(rec, ns) : t.wordHash(rec), kind, fi, start, i);
        // The word a message opens with, as a pair with the message's start ("Dear …", "Hello, …", "Subscribe …").
        if (opening && bigrams) this.add(t.stemHash(rec, NS_OPENING), KIND.bigram, fi, start, i);
        opening = false;
        if (bigrams) {
          const stop = (flags & TOKEN_STOP) !== 0;
          if (hasPrev && !(stop && prevStop)) this.add(t.stemHash(rec, prevHead), KIND.bigram, fi, prevStart, i);
          hasPrev = true;
          prevHead = t.bigramHead(rec);
          prevStop = stop;
          prevStart = start;
        }
      } else if (cls === NOSPACE) {
        const start = i;
        while (i < n && CHAR_CLASS[lower.charCodeAt(i)] === NOSPACE) i++;
        f.nameTokens += role === 'name' ? 1 : 0;
        if (i - start === 1) this.add(hashRange(lower, start, i, ns), kind, fi, start, i);
        for (let k = start; k + 2 <= i; k++) this.add(hashRange(lower, k, k + 2, ns), kind, fi, k, k + 2);
        hasPrev = false;
        singleLetters = 0;
      } else if (cls === SYMBOL) {
        const start = i;
        i += c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
        this.add(hashRange(lower, start, i, ns), tagged ? kind : KIND.symbol, fi, start, i);
      } else {
        i++;
        if (c !== 0x20 && c !== 0x27) {
          hasPrev = false;
          singleLetters = 0;
        }
      }
    }
  }

  private gibberish(token: string): void {
    this.facts.gibberishWords++;
    if (this.facts.gibberishExamples.length < 3) this.facts.gibberishExamples.push(token);
  }
}

// TLDs that rarely start the next sentence; "info", "co", "io", "de" and "uk" count only in the "dot" spelling.
const OBFUSCATED_TLDS: ReadonlySet<string> = new Set(['com', 'net', 'org', 'ru', 'tk', 'xyz', 'ly', 'biz']);
const OBFUSCATED_DOT_TLDS: ReadonlySet<string> = new Set([...OBFUSCATED_TLDS, 'info', 'co', 'io', 'de', 'uk']);
/** "[dot]" and "(dot)": describe.ts names a domain spelled with them (or " dot ", " . ") as it resolves. */
export const BRACKETED_DOTS = ['[dot]', '(dot)'] as const;
const TLD_MIN_LENGTH = Math.min(...[...OBFUSCATED_DOT_TLDS].map((t) => t.length));
const TLD_MAX_LENGTH = Math.max(...[...OBFUSCATED_DOT_TLDS].map((t) => t.length));

// Mail providers whose domain after a plain " at " makes an address ("tom at gmail.com"), not "look at site.com".
const WEBMAIL = new Set([
  'gmail', 'googlemail', 'outlook', 'hotmail', 'live', 'msn', 'yahoo', 'ymail', 'icloud', 'me', 'aol', 'gmx', 'web',
  'mail', 'yandex', 'proton', 'protonmail', 'pm', 'zoho', 'qq', '163', '126', 'naver', 'daum', 'libero', 'orange',
  'free', 't-online', 'seznam', 'wp', 'o2', 'interia', 'rambler', 'bk', 'list', 'inbox', 'ukr', 'abv', 'freenet',
]);

/**
 * Whether the host starting at `start` follows an "at" that makes it an address's domain: "(at)", "[at]", or
 * " at " after a local part spelled with "dot" ("tom dot hall at …") or before a mail provider ("… at gmail.com").
 */
function spelledAt(lower: string, start: number): boolean {
  let i = start;
  while (i > 0 && lower.charCodeAt(i - 1) === 0x20) i--;
  if (i === start && i > 0 && lower.charCodeAt(i - 1) !== 0x29 && lower.charCodeAt(i - 1) !== 0x5d && lower.charCodeAt(i - 1) !== 0x7d) return false;
  const head = lower.slice(Math.max(0, i - 4), i);
  if (head === '(at)' || head === '[at]' || head === '{at}') return true;
  if (!head.endsWith(' at') || i === start) return false;
  let dot = start;
  while (dot < lower.length && lower.charCodeAt(dot) !== 0x2e && lower.charCodeAt(dot) !== 0x20) dot++;
  if (WEBMAIL.has(lower.slice(start, dot))) return true;
  return / dot [a-z0-9._-]+ at$/.test(lower.slice(Math.max(0, i - 60), i));
}

/** "It broke.In the end…": a missing space after a full stop, not a link (a lower-case letter or digit, then a capitalised word). */
function joinsSentences(text: string, lower: string, dot: number, end: number): boolean {
  if (text.length !== lower.length) return false;
  const before = text.charCodeAt(dot - 1);
  if (!(before >= 0x61 && before <= 0x7a) && !(before >= 0x30 && before <= 0x39)) return false;
  const first = text.charCodeAt(dot + 1);
  if (first < 0x41 || first > 0x5a) return false;
  for (let k = dot + 2; k < end; k++) if (text.charCodeAt(k) !== lower.charCodeAt(k)) return false;
  return true;
}

/** Lower case of the same length: Turkish `İ` lower-cases to two code units in JavaScript and would shift every index after it. */
function lowerCase(text: string): string {
  return text.indexOf('\u0130') < 0 ? text.toLowerCase() : text.replaceAll('\u0130', 'I').toLowerCase();
}

function isUrlChar(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

// Roles whose text is prose: character statistics, n-grams and obfuscated links are read there.
function isTextual(role: FieldRole): boolean {
  return role === 'message' || role === 'other' || role === 'name';
}

// a-z, 0-9, '.', '-': what a host name (or an email's domain) is made of, in lower-cased text.
function isHostChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
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

/** Two name or message fields with the same text of 3+ characters (name = subject = message). */
function hasRepeatedText(flat: readonly FieldText[], texts: readonly string[]): boolean {
  for (let a = 0; a < flat.length; a++) {
    const ta = (texts[a] ?? '').trim();
    if (ta.length < 3 || !isPersonText((flat[a] as FieldText).role)) continue;
    for (let b = a + 1; b < flat.length; b++) {
      if (isPersonText((flat[b] as FieldText).role) && (texts[b] ?? '').trim() === ta) return true;
    }
  }
  return false;
}

function isPersonText(role: FieldRole): boolean {
  return role === 'name' || role === 'message';
}
