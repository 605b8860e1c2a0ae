import { CHAR_CLASS, WORD } from './char-class.ts';
import { spelledAt, spelledEmailDomain } from './email-heuristics.ts';
import { noteLinkHost, noteSeenHost } from './facts.ts';
import { hashRange, hashStep } from './hash.ts';
import { KIND } from './kinds.ts';
import { isHostChar, NS_DOMAIN, NS_TLD } from './link-heuristics.ts';
import { DISPOSABLE_EMAIL_DOMAINS } from './lists.ts';
import type { FieldRole } from './roles.ts';
import type { ScanState } from './scan-state.ts';

// TLDs that rarely start the next sentence; "info", "co", "io", "de" and "uk" count only in the "dot" spelling.
const OBFUSCATED_TLDS: ReadonlySet<string> = new Set(['com', 'net', 'org', 'ru', 'tk', 'xyz', 'ly', 'biz']);
const OBFUSCATED_DOT_TLDS: ReadonlySet<string> = new Set([...OBFUSCATED_TLDS, 'info', 'co', 'io', 'de', 'uk']);
/** "[dot]" and "(dot)": describe.ts names a domain spelled with them (or " dot ", " . ") as it resolves. */
export const BRACKETED_DOTS = ['[dot]', '(dot)'] as const;
const TLD_MIN_LENGTH = Math.min(...[...OBFUSCATED_DOT_TLDS].map((t) => t.length));
const TLD_MAX_LENGTH = Math.max(...[...OBFUSCATED_DOT_TLDS].map((t) => t.length));

/**
 * Links spelled to dodge link filters: "site. com", "site .com/x", "site . com", "site dot com". Only
 * top-level domains that are not everyday words count, and the domain must not run on into a word.
 */
export function scanObfuscatedLinks(s: ScanState, lower: string, fi: number, role: FieldRole): void {
  const n = lower.length;
  for (let at = lower.indexOf('.'); at >= 0; at = lower.indexOf('.', at + 1)) {
    let a = at,
      b = at + 1;
    while (a > 0 && lower.charCodeAt(a - 1) === 0x20 && at - a < 2) a--;
    while (b < n && lower.charCodeAt(b) === 0x20 && b - at - 1 < 2) b++;
    if (a === at && b === at + 1) continue; // a plain dot: hostRun's business
    // "word. Com…" is also how a sentence ends and the next begins ("com" is Portuguese for "with"):
    // a space after the dot alone counts only with a www. host or a path after the domain.
    obfuscatedAt(s, lower, a, b, fi, role, OBFUSCATED_TLDS, a === at);
  }
  // The three spellings below all hold "dot": most fields have none, and one search answers for all three.
  if (lower.indexOf('dot') < 0) return;
  for (let at = lower.indexOf(' dot '); at >= 0; at = lower.indexOf(' dot ', at + 1)) {
    obfuscatedAt(s, lower, at, at + 5, fi, role, OBFUSCATED_DOT_TLDS, false);
  }
  // "[dot]" and "(dot)", the bracketed spelling that "[at]" and "(at)" come with.
  for (const sep of BRACKETED_DOTS) {
    for (let at = lower.indexOf(sep); at >= 0; at = lower.indexOf(sep, at + 1)) {
      const a = at > 0 && lower.charCodeAt(at - 1) === 0x20 ? at - 1 : at;
      const b = lower.charCodeAt(at + sep.length) === 0x20 ? at + sep.length + 1 : at + sep.length;
      obfuscatedAt(s, lower, a, b, fi, role, OBFUSCATED_DOT_TLDS, false);
    }
  }
}

/** [a, b) is the separator ("  .  " or " dot "): a host must end at a and a known TLD start at b. */
function obfuscatedAt(
  s: ScanState,
  lower: string,
  a: number,
  b: number,
  fi: number,
  role: FieldRole,
  tlds: ReadonlySet<string>,
  sentenceLike: boolean,
): void {
  let hs = a;
  while (hs > 0 && isHostChar(lower.charCodeAt(hs - 1))) hs--;
  while (hs < a && (lower.charCodeAt(hs) === 0x2e || lower.charCodeAt(hs) === 0x2d)) hs++;
  if (a - hs < 2) return;
  let te = b;
  while (te < lower.length && lower.charCodeAt(te) >= 0x61 && lower.charCodeAt(te) <= 0x7a) te++;
  // The length first, before any slice: every sentence end gets here.
  if (te - b < TLD_MIN_LENGTH || te - b > TLD_MAX_LENGTH) return;
  if (te < lower.length && CHAR_CLASS[lower.charCodeAt(te)] === WORD) return;
  // "www.site. com": hostRun already counted www.site as a link.
  const counted = lower.startsWith('www.', hs);
  if (sentenceLike && !counted && lower.charCodeAt(te) !== 0x2f) return;
  if (!tlds.has(lower.slice(b, te))) return;
  const f = s.facts;
  if (role === 'email') {
    // An email field holds an address however it is spelled ("tom at mailinator dot com"): a domain, never a link,
    // checked against the disposable list as emailDomain checks a plain one.
    const domain = `${lower.slice(hs, a)}.${lower.slice(b, te)}`;
    if (DISPOSABLE_EMAIL_DOMAINS.has(domain)) f.disposableDomain = domain;
    spelledEmailDomain(s, lower, hs, a, b, te, fi);
    return;
  }
  if (!counted && (lower.charCodeAt(hs - 1) === 0x40 || spelledAt(lower, hs))) {
    // "tom dot hall at outlook dot com": an address spelled out so that harvesters miss it, not a link.
    if (role === 'name') f.emailsInName++;
    else f.emailsInText++;
    spelledEmailDomain(s, lower, hs, a, b, te, fi);
    return;
  }
  if (role === 'name') f.linksInName += counted ? 0 : 1;
  else {
    if (!counted) f.links++;
    f.obfuscatedLinks++;
    const host = `${lower.slice(hs, a)}.${lower.slice(b, te)}`;
    noteLinkHost(f, host);
    noteSeenHost(f, host);
  }
  if (!s.settings.structure) return;
  s.acc.add(hashRange(lower, b, te, hashStep(hashRange(lower, hs, a, NS_DOMAIN), 0x2e)), KIND.domain, fi, hs, te, true);
  s.acc.add(hashRange(lower, b, te, NS_TLD), KIND.domain, fi, b, te, true);
}
