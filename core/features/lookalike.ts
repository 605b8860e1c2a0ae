import { ownerLabel } from './registrable-domain.ts';

// Brands phishing imitates, by the label their own domain uses, with that domain (the reasoning names it). Written
// from general knowledge of what is phished; brands the held-out links set's notes name as its lookalikes were left
// out on purpose, so that set still measures lookalikes the list was not written for.
const BRANDS = new Map<string, string>([
  ['paypal', 'paypal.com'],
  ['amazon', 'amazon.com'],
  ['microsoft', 'microsoft.com'],
  ['apple', 'apple.com'],
  ['icloud', 'icloud.com'],
  ['netflix', 'netflix.com'],
  ['google', 'google.com'],
  ['gmail', 'gmail.com'],
  ['linkedin', 'linkedin.com'],
  ['docusign', 'docusign.com'],
  ['shopify', 'shopify.com'],
  ['binance', 'binance.com'],
  ['wellsfargo', 'wellsfargo.com'],
  ['bankofamerica', 'bankofamerica.com'],
  ['citibank', 'citibank.com'],
  ['americanexpress', 'americanexpress.com'],
  ['mastercard', 'mastercard.com'],
  ['facebook', 'facebook.com'],
  ['instagram', 'instagram.com'],
  ['whatsapp', 'whatsapp.com'],
  ['telegram', 'telegram.org'],
  ['tiktok', 'tiktok.com'],
  ['fedex', 'fedex.com'],
  ['usps', 'usps.com'],
  ['ups', 'ups.com'],
  ['onedrive', 'onedrive.live.com'],
  ['impots', 'impots.gouv.fr'],
  ['trendyol', 'trendyol.com'],
  ['royalmail', 'royalmail.com'],
  ['hsbc', 'hsbc.com'],
  ['barclays', 'barclays.co.uk'],
  ['santander', 'santander.com'],
  ['sparkasse', 'sparkasse.de'],
  ['postnl', 'postnl.nl'],
  ['correos', 'correos.es'],
  ['ebay', 'ebay.com'],
  ['adobe', 'adobe.com'],
  ['wetransfer', 'wetransfer.com'],
  ['metamask', 'metamask.io'],
  ['revolut', 'revolut.com'],
  ['walmart', 'walmart.com'],
  ['airbnb', 'airbnb.com'],
  ['rakuten', 'rakuten.co.jp'],
  ['mercadolibre', 'mercadolibre.com'],
  ['mercadopago', 'mercadopago.com'],
  ['sberbank', 'sberbank.ru'],
  ['gosuslugi', 'gosuslugi.ru'],
  ['github', 'github.com'],
  ['arxiv', 'arxiv.org'],
  ['steampowered', 'steampowered.com'],
  ['steamcommunity', 'steamcommunity.com'],
]);

/** Brand labels long enough that one typo away is a lookalike rather than another word ("apple" / "apply"). */
const EDIT_MIN = 6;
/** Labels longer than this are no brand's: skipped, so the check stays cheap whatever a link holds. */
const MAX_LABEL = 40;

/**
 * The well-known domain that host (lower case; `raw` is how it was typed) imitates, or null: a brand's name spelt
 * with look-alike characters (paypa1, amaz0n, rnicrosoft, netfIix), one typo away (docusiqn, shoplfy), or spelt
 * right but on someone else's domain (paypal-login.xyz, arxiv.org.example.net). One pass over each label: no regex.
 */
export function lookalikeOf(host: string, raw: string): string | null {
  const owner = ownerLabel(host);
  const topDot = host.lastIndexOf('.');
  let start = 0;
  while (start < topDot) {
    let end = host.indexOf('.', start);
    if (end < 0 || end > topDot) end = topDot;
    const found = labelLookalike(host, raw, start, end, owner);
    if (found !== null) return found;
    start = end + 1;
  }
  return null;
}

/** The label [start, end) whole, each of its hyphen-separated parts, and the label without its hyphens. */
function labelLookalike(host: string, raw: string, start: number, end: number, owner: string): string | null {
  if (end - start > MAX_LABEL || end - start < 3) return null;
  const label = host.slice(start, end);
  const isOwner = label === owner;
  const whole = check(label, raw.slice(start, end), isOwner);
  if (whole !== null || label.indexOf('-') < 0) return whole;
  let p = start;
  while (p < end) {
    let q = host.indexOf('-', p);
    if (q < 0 || q > end) q = end;
    if (q - p >= 3) {
      const part = check(host.slice(p, q), raw.slice(p, q), false);
      if (part !== null) return part;
    }
    p = q + 1;
  }
  return check(label.replaceAll('-', ''), raw.slice(start, end).replaceAll('-', ''), false);
}

/** `isOwner`: the label is the registered name itself, so the brand spelt right there is the brand's own domain. */
function check(label: string, raw: string, isOwner: boolean): string | null {
  const plain = normalize(label, raw);
  const brand = BRANDS.get(plain);
  if (brand !== undefined) return plain === label && isOwner ? null : brand;
  if (plain.length < EDIT_MIN - 1) return null;
  for (let i = 0; i < EDITABLE_NAMES.length; i++) {
    const name = EDITABLE_NAMES[i] as string;
    if (Math.abs(name.length - plain.length) <= 1 && withinOneEdit(plain, name)) return EDITABLE_DOMAINS[i] as string;
  }
  return null;
}

// The brands a typo can imitate, in BRANDS' order, listed once: iterating the map made an entry array per brand per label.
const EDITABLE_NAMES = [...BRANDS.keys()].filter((name) => name.length >= EDIT_MIN);
const EDITABLE_DOMAINS = EDITABLE_NAMES.map((name) => BRANDS.get(name) as string);

// Characters typed for the letter they look like: 0 for o, 1 for l, and so on.
const DIGIT_LOOKS = 'oleastbg';
const DIGIT_OF = '01345789';

/** The label as it reads: look-alike digits as letters, a capital I as the l it imitates, "rn" as m, "vv" as w. */
function normalize(label: string, raw: string): string {
  // Most labels read as written: they are returned as they are instead of copied one character at a time.
  if (!needsNormalizing(label, raw)) return label;
  let out = '';
  for (let i = 0; i < label.length; i++) {
    const c = label[i] as string;
    const d = DIGIT_OF.indexOf(c);
    if (d >= 0) out += DIGIT_LOOKS[d];
    else if (c === 'i' && raw[i] === 'I') out += 'l';
    else if (c === 'r' && label[i + 1] === 'n') {
      out += 'm';
      i++;
    } else if (c === 'v' && label[i + 1] === 'v') {
      out += 'w';
      i++;
    } else out += c;
  }
  return out;
}

/** Whether `normalize` would change anything in label: a look-alike digit, an I typed for an l, "rn" or "vv". */
function needsNormalizing(label: string, raw: string): boolean {
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39 && c !== 0x32 && c !== 0x36) return true; // DIGIT_OF: all digits but 2 and 6
    if (c === 0x69 && raw.charCodeAt(i) === 0x49) return true;
    const next = i + 1 < label.length ? label.charCodeAt(i + 1) : 0;
    if ((c === 0x72 && next === 0x6e) || (c === 0x76 && next === 0x76)) return true;
  }
  return false;
}

/** Whether a and b differ by at most one insertion, deletion, substitution or swap of neighbours; linear. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
