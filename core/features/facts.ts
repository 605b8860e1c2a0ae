/** Counts gathered while featurizing one submission; structure features and reasoning read them. */
export interface Facts {
  fields: number;
  messageChars: number;
  /** Fields read as message text (a subject and a message are two): the length phrase says when it sums several. */
  messageFields: number;
  letters: number;
  /** Letters with a case pair (Latin, Greek, Cyrillic, Armenian…), and how many of them are capitals. */
  cased: number;
  upper: number;
  digits: number;
  symbols: number;
  maxRepeat: number;
  scripts: number;
  links: number;
  /** Non-space characters of message fields (Chinese, Japanese, Thai ones count three times), and how many of them are links. */
  messageNonSpace: number;
  messageLinkChars: number;
  linkHosts: string[];
  markupLinks: number;
  /** Links written to dodge filters: "site. com", "site dot com" (also counted in links). */
  obfuscatedLinks: number;
  emailsInText: number;
  linksInName: number;
  emailsInName: number;
  nameTokens: number;
  longLatinWords: number;
  gibberishWords: number;
  gibberishExamples: string[];
  mixedScriptWords: number;
  spacedLetters: boolean;
  /** Two or more text fields with the same text (bots fill every field alike). */
  repeatedFieldText: boolean;
  /** Unfilled mail-merge placeholders or spintax: `{$FIRSTNAME}`, `{Hello|Hi}`. */
  template: boolean;
  honeypot: 'none' | 'empty' | 'filled';
  disposableDomain: string | null;
  shortener: string | null;
  truncated: boolean;
  /** With the linkContext setting: the kinds of the links (a bit per LINK_KINDS entry) and the first host of each. */
  linkKinds: number;
  linkKindHosts: (string | null)[];
  /** The well-known domain a lookalike link imitates. */
  lookalikeOf: string | null;
  /** The first address's domain in an email field; links of no known kind are compared with it. */
  senderDomain: string | null;
  /** Hosts of links of no known kind (bounded by link-context.ts), for the own-site check at the end. */
  otherHosts: string[];
  /**
   * Every distinct host linked to, in any field but an address's domain (at most MAX_SEEN_HOSTS, the first ones), and
   * the first e-mail field's address: what an account's allow and block lists are compared with. Noted whatever the
   * feature settings, as they change no feature.
   */
  seenHosts: string[];
  senderAddress: string | null;
}

/** Hosts kept in `seenHosts`: a submission linking to more has its first ones compared with the lists. */
export const MAX_SEEN_HOSTS = 32;

/** Notes a host linked to for the lists (distinct, the first MAX_SEEN_HOSTS). */
export function noteSeenHost(f: Facts, host: string): void {
  if (f.seenHosts.length < MAX_SEEN_HOSTS && !f.seenHosts.includes(host)) f.seenHosts.push(host);
}

/** Longest e-mail address (RFC 5321's path limit). */
const MAX_ADDRESS = 254;

/**
 * An e-mail field's value as an address for the lists: trimmed (the text is already lower-cased), one "@" with
 * something on both sides, no space and at most 254 characters; null for anything else. Two linear scans.
 */
export function senderAddressOf(lower: string): string | null {
  const v = lower.trim();
  if (v.length < 3 || v.length > MAX_ADDRESS) return null;
  const at = v.indexOf('@');
  if (at <= 0 || at === v.length - 1 || v.indexOf('@', at + 1) >= 0) return null;
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) <= 0x20) return null;
  return v;
}

/** The first three distinct hosts linked to: the reasoning names up to two. */
export function noteLinkHost(f: Facts, host: string): void {
  if (f.linkHosts.length < 3 && !f.linkHosts.includes(host)) f.linkHosts.push(host);
}

export function emptyFacts(): Facts {
  return {
    fields: 0,
    messageChars: 0,
    messageFields: 0,
    letters: 0,
    cased: 0,
    upper: 0,
    digits: 0,
    symbols: 0,
    maxRepeat: 0,
    scripts: 0,
    links: 0,
    messageNonSpace: 0,
    messageLinkChars: 0,
    linkHosts: [],
    markupLinks: 0,
    obfuscatedLinks: 0,
    emailsInText: 0,
    linksInName: 0,
    emailsInName: 0,
    nameTokens: 0,
    longLatinWords: 0,
    gibberishWords: 0,
    gibberishExamples: [],
    mixedScriptWords: 0,
    spacedLetters: false,
    repeatedFieldText: false,
    template: false,
    honeypot: 'none',
    disposableDomain: null,
    shortener: null,
    truncated: false,
    linkKinds: 0,
    linkKindHosts: [null, null, null, null, null, null, null, null, null, null, null, null, null, null],
    lookalikeOf: null,
    senderDomain: null,
    otherHosts: [],
    seenHosts: [],
    senderAddress: null,
  };
}
