import type { FormFields } from './form-fields.ts';
import { isCaptchaToken, roleOf, type FieldRole } from './roles.ts';

export interface FieldText {
  /** Leaf key (last path segment that is not an array index). */
  readonly key: string;
  readonly role: FieldRole;
  /** The value as text, NFKC-normalized with invisible characters removed. */
  readonly text: string;
}

// Deeper than any form builder nests; the bound keeps the recursion shallow.
const MAX_DEPTH = 32;
const MAX_FIELDS = 256;

interface Walk {
  readonly out: FieldText[];
  readonly maxChars: number;
  /** Fields kept whose role is not 'other': what a person wrote, or a honeypot. */
  textual: number;
}

/**
 * Flattens nested form data into leaf texts in document order. Booleans, numbers and empty honeypots are kept
 * (a filled vs. empty honeypot matters); other empty values carry nothing and are skipped. At most MAX_FIELDS are
 * kept, and past that bound a field of another role gives way to a message, name, email, link or honeypot field:
 * padding a post with junk fields must not push the message out of what the model reads.
 */
export function flattenFields(fields: FormFields, out: FieldText[] = [], maxChars = Infinity): FieldText[] {
  out.length = 0;
  const w: Walk = { out, maxChars, textual: 0 };
  walk(fields, '', 0, w, false);
  if (out.length > MAX_FIELDS) dropOtherFromEnd(out);
  return out;
}

function walk(value: unknown, key: string, depth: number, w: Walk, inArray: boolean): void {
  if (w.textual >= MAX_FIELDS) return;
  if (value === null || value === undefined) return;
  if (typeof value === 'string') {
    leaf(w, key, roleOf(key, value), value);
    return;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    leaf(w, key, 'other', String(value));
    return;
  }
  if (depth >= MAX_DEPTH || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, key, depth + 1, w, true);
    return;
  }
  const pair = inArray ? namedValue(value as Record<string, unknown>) : undefined;
  if (pair !== undefined) {
    walk(pair.value, pair.name, depth + 1, w, false);
    return;
  }
  for (const k of Object.keys(value)) walk((value as Record<string, unknown>)[k], k, depth + 1, w, false);
}

function leaf(w: Walk, key: string, role: FieldRole, value: string): void {
  // A CAPTCHA answer is the widget's, not the sender's; a honeypot so named is still a honeypot.
  if (role !== 'honeypot' && isCaptchaToken(key)) return;
  const textual = role !== 'other';
  if (!textual && w.out.length >= MAX_FIELDS) return;
  // A honeypot's text is only checked for being blank, which a cut could change.
  const text = role === 'honeypot' ? clean(value) : cleanPrefix(value, w.maxChars);
  if (text === '' && role !== 'honeypot') return;
  w.out.push({ key, role, text });
  if (textual) w.textual++;
}

/** Back to MAX_FIELDS by dropping 'other' fields from the end; at most MAX_FIELDS fields have another role. */
function dropOtherFromEnd(out: FieldText[]): void {
  let excess = out.length - MAX_FIELDS;
  for (let i = out.length - 1; i >= 0 && excess > 0; i--) {
    if ((out[i] as FieldText).role === 'other') {
      out.splice(i, 1);
      excess--;
    }
  }
}

const NAME_KEYS = ['name', 'field', 'key', 'label'] as const;

/**
 * `[{name: "email", value: "..."}, ...]`: how jQuery's serializeArray, HubSpot and many form builders send fields.
 * The name names the value, so the value takes its role from it (not "name" the person's name).
 */
function namedValue(o: Record<string, unknown>): { name: string; value: unknown } | undefined {
  if (!('value' in o)) return undefined;
  const keys = Object.keys(o);
  if (keys.length > 4) return undefined;
  for (const k of NAME_KEYS) {
    const name = o[k];
    if (typeof name === 'string' && name.length > 0 && name.length <= 64 && !/\s/.test(name)) return { name, value: o.value };
  }
  return undefined;
}

// Zero-width characters, soft hyphens and BOMs hide words from filters; NFKC folds look-alike forms.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;

// Text cleaned beyond what extraction reads: enough that normalization at the cut cannot reach back into it.
const CUT_MARGIN = 1024;

/**
 * `clean(s)` up to at least `maxChars` characters: the extractor reads no further, and a 64 KiB field would
 * otherwise be normalized whole. Falls back to the whole text when removed characters leave the prefix short.
 */
function cleanPrefix(s: string, maxChars: number): string {
  if (s.length <= maxChars + CUT_MARGIN) return clean(s);
  let cut = maxChars + CUT_MARGIN;
  // Never split a surrogate pair.
  if ((s.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut++;
  const head = clean(s.slice(0, cut));
  return head.length >= maxChars + CUT_MARGIN / 2 ? head : clean(s);
}

function clean(s: string): string {
  if (isAscii(s)) return s;
  return s.normalize('NFKC').replace(INVISIBLE, '');
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}
