import { emailDomain, spelledAt } from './email-heuristics.ts';
import { noteLinkHost, noteSeenHost, type Facts } from './facts.ts';
import { hashRange, hashString } from './hash.ts';
import { KIND } from './kinds.ts';
import { isReference, noteLink } from './link-context.ts';
import { LINK_TLDS, URL_SHORTENERS } from './lists.ts';
import type { FieldRole } from './roles.ts';
import type { ScanState } from './scan-state.ts';

export const NS_DOMAIN = hashString('u|dom|');
export const NS_TLD = hashString('u|tld|');

/**
 * A run [start, end) of host-name characters with a dot in it, as char-stats finds them: a link, an email
 * address's domain, or neither ("e.g", "It broke.In the end").
 */
export function hostRun(s: ScanState, text: string, lower: string, start: number, end: number, fi: number, role: FieldRole): void {
  while (start < end && (lower.charCodeAt(start) === 0x2e || lower.charCodeAt(start) === 0x2d)) start++;
  while (end > start && (lower.charCodeAt(end - 1) === 0x2e || lower.charCodeAt(end - 1) === 0x2d)) end--;
  if (end - start < 3) return;
  const before = start > 0 ? lower.charCodeAt(start - 1) : 0;
  const after = end < lower.length ? lower.charCodeAt(end) : 0;
  if (after === 0x40) return; // local part of an email; the domain run follows
  let dot = end - 1;
  while (dot > start && lower.charCodeAt(dot) !== 0x2e) dot--;
  if (dot <= start || dot === end - 1) return;
  const f = s.facts;
  if (before === 0x40 || spelledAt(lower, start)) {
    // An email address ("name at site.com" spelled out too): its domain is a feature of its own.
    if (role === 'email') {
      if (s.settings.linkContext && f.senderDomain === null) f.senderDomain = lower.slice(start, end);
      emailDomain(s, lower, start, end, dot, fi);
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
  noteSeenHost(s.facts, host);
  let reference = false;
  if (role === 'name') f.linksInName++;
  else if (role !== 'url' && role !== 'email') {
    f.links++;
    noteLinkHost(f, host);
    if (s.settings.mostlyLinks && role === 'message' && start >= s.linkEnd) measureLink(s, lower, start, end);
    if (s.settings.linkContext) reference = judgeLink(f, host, text, lower, hostStart, end, s.settings.linkAccountWords === true);
  }
  if (URL_SHORTENERS.has(host)) f.shortener = host;
  if (!s.settings.structure) return;
  // A reference host is its kind's structure feature: its name would be one more word to memorise.
  if (reference) return;
  // Without host names a link is its kinds and its ending: a host seen once in training is a name to memorise.
  const linkHost = role !== 'url' && role !== 'name';
  if (!(linkHost && s.settings.linkContext && s.settings.linkHostNames === false))
    s.acc.add(hashRange(lower, hostStart, end, NS_DOMAIN), KIND.domain, fi, hostStart, end, true);
  s.acc.add(hashRange(lower, dot + 1, end, NS_TLD), KIND.domain, fi, dot + 1, end, true);
}

/** Notes the kinds of the link to host (lower[start, end)); whether it is a reference whose host name is no feature of its own. */
function judgeLink(f: Facts, host: string, text: string, lower: string, start: number, end: number, accountWords: boolean): boolean {
  // Same length unless lower-casing changed it (Turkish İ): then the capital-I trick cannot be read.
  const raw = text.length === lower.length ? text.slice(start, end) : host;
  return isReference(noteLink(f, host, raw, lower.slice(end, end + 6), accountWords));
}

/**
 * Adds the length of the link around the host [start, end) (its scheme before and its path after, as far as
 * printable ASCII runs: Chinese, Japanese or Thai text runs on into a link without a space). Never scans back
 * past the last link measured, so a field packed with links costs one pass, not one per link.
 */
function measureLink(s: ScanState, lower: string, start: number, end: number): void {
  let a = start;
  while (a > s.linkEnd && isUrlChar(lower.charCodeAt(a - 1))) a--;
  let b = end;
  while (b < lower.length && isUrlChar(lower.charCodeAt(b))) b++;
  s.facts.messageLinkChars += b - a;
  s.linkEnd = b;
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

function isUrlChar(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

// a-z, 0-9, '.', '-': what a host name (or an email's domain) is made of, in lower-cased text.
export function isHostChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
}
