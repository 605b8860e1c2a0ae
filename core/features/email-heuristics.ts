import { hashRange, hashStep, hashString } from './hash.ts';
import { KIND } from './kinds.ts';
import { DISPOSABLE_EMAIL_DOMAINS } from './lists.ts';
import type { ScanState } from './scan-state.ts';

const NS_EMAIL_DOMAIN = hashString('e|dom|');
const NS_EMAIL_TLD = hashString('e|tld|');

/** The domain [start, end) of an address in an email field, whose last dot is at `dot`: disposable or not, and two features. */
export function emailDomain(s: ScanState, lower: string, start: number, end: number, dot: number, fi: number): void {
  const domain = lower.slice(start, end);
  if (DISPOSABLE_EMAIL_DOMAINS.has(domain)) s.facts.disposableDomain = domain;
  if (!s.settings.structure) return;
  s.acc.add(hashRange(lower, start, end, NS_EMAIL_DOMAIN), KIND.emailDomain, fi, start, end, true);
  s.acc.add(hashRange(lower, dot + 1, end, NS_EMAIL_TLD), KIND.emailDomain, fi, dot + 1, end, true);
}

/** The domain of an address spelled out as host [hs, a), separator [a, b), top-level domain [b, te). */
export function spelledEmailDomain(s: ScanState, lower: string, hs: number, a: number, b: number, te: number, fi: number): void {
  if (!s.settings.structure) return;
  s.acc.add(hashRange(lower, b, te, hashStep(hashRange(lower, hs, a, NS_EMAIL_DOMAIN), 0x2e)), KIND.emailDomain, fi, hs, te, true);
  s.acc.add(hashRange(lower, b, te, NS_EMAIL_TLD), KIND.emailDomain, fi, b, te, true);
}

// Mail providers whose domain after a plain " at " makes an address ("tom at gmail.com"), not "look at site.com".
export const WEBMAIL: ReadonlySet<string> = new Set([
  'gmail',
  'googlemail',
  'outlook',
  'hotmail',
  'live',
  'msn',
  'yahoo',
  'ymail',
  'icloud',
  'me',
  'aol',
  'gmx',
  'web',
  'mail',
  'yandex',
  'proton',
  'protonmail',
  'pm',
  'zoho',
  'qq',
  '163',
  '126',
  'naver',
  'daum',
  'libero',
  'orange',
  'free',
  't-online',
  'seznam',
  'wp',
  'o2',
  'interia',
  'rambler',
  'bk',
  'list',
  'inbox',
  'ukr',
  'abv',
  'freenet',
]);

/**
 * Whether the host starting at `start` follows an "at" that makes it an address's domain: "(at)", "[at]", or
 * " at " after a local part spelled with "dot" ("tom dot hall at …") or before a mail provider ("… at gmail.com").
 */
export function spelledAt(lower: string, start: number): boolean {
  let i = start;
  while (i > 0 && lower.charCodeAt(i - 1) === 0x20) i--;
  if (i === start && i > 0 && lower.charCodeAt(i - 1) !== 0x29 && lower.charCodeAt(i - 1) !== 0x5d && lower.charCodeAt(i - 1) !== 0x7d)
    return false;
  const head = lower.slice(Math.max(0, i - 4), i);
  if (head === '(at)' || head === '[at]' || head === '{at}') return true;
  if (!head.endsWith(' at') || i === start) return false;
  let dot = start;
  while (dot < lower.length && lower.charCodeAt(dot) !== 0x2e && lower.charCodeAt(dot) !== 0x20) dot++;
  if (WEBMAIL.has(lower.slice(start, dot))) return true;
  return / dot [a-z0-9._-]+ at$/.test(lower.slice(Math.max(0, i - 60), i));
}
