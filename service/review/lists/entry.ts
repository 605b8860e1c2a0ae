import { z } from 'zod';

/** Which list: a hit on `block` answers spam, on `allow` legitimate (block wins when both match). */
export const LIST_NAMES = ['block', 'allow'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** What an entry is compared with: the sender's address, its domain, or a host the submission links to. */
export const ENTRY_KINDS = ['sender', 'email-domain', 'link-domain'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** Longest e-mail address and host name (RFC 5321, RFC 1035). */
const MAX_ADDRESS = 254;
const MAX_HOST = 253;

/** A host name as links carry it: lower-case ASCII letters, digits and hyphens, in two or more dot-separated labels. */
export function isHostName(v: string): boolean {
  if (v.length < 3 || v.length > MAX_HOST) return false;
  let label = 0;
  let dots = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x2e) {
      if (label === 0) return false;
      label = 0;
      dots++;
    } else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d) {
      if (++label > 63) return false;
    } else return false;
  }
  return dots > 0 && label > 0;
}

/** local@host: a local part of printable ASCII without spaces or "@" (1-64 characters), then a host name. */
export function isAddress(v: string): boolean {
  if (v.length > MAX_ADDRESS) return false;
  const at = v.indexOf('@');
  if (at < 1 || at > 64) return false;
  for (let i = 0; i < at; i++) {
    const c = v.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return isHostName(v.slice(at + 1));
}

/**
 * The value as entries keep it: trimmed and lower-cased (the extractor lower-cases what it compares), and for a
 * domain without a scheme, path or leading "www." (links are compared by host, "www." left off).
 */
export function normalizeValue(kind: EntryKind, raw: string): string {
  let v = raw.trim().toLowerCase();
  if (kind === 'sender') return v;
  if (kind === 'email-domain' && v.startsWith('@')) v = v.slice(1);
  if (kind === 'link-domain') {
    const scheme = v.indexOf('://');
    if (scheme >= 0 && scheme < 10) v = v.slice(scheme + 3);
    const slash = v.search(/[/?#]/);
    if (slash >= 0) v = v.slice(0, slash);
    if (v.startsWith('www.')) v = v.slice(4);
  }
  return v.endsWith('.') ? v.slice(0, -1) : v;
}

const RAW_MAX = 300;

/** One entry as the console sends it; the value is normalized, then checked for its kind. */
export const listEntrySchema = z
  .object({
    list: z.enum(LIST_NAMES),
    kind: z.enum(ENTRY_KINDS),
    value: z.string().min(1).max(RAW_MAX),
  })
  .transform((e) => ({ ...e, value: normalizeValue(e.kind, e.value) }))
  .refine((e) => (e.kind === 'sender' ? isAddress(e.value) : isHostName(e.value)), {
    message: 'value: a sender is an e-mail address (name@example.com); a domain is a host name (example.com)',
    path: ['value'],
  });

export type ListEntry = z.output<typeof listEntrySchema>;

/** The entry's field in the account's lists hash: values hold no space (checked above), so the three split back. */
export function fieldOf(e: Pick<ListEntry, 'list' | 'kind' | 'value'>): string {
  return `${e.list} ${e.kind} ${e.value}`;
}

export function entryOfField(field: string): Pick<ListEntry, 'list' | 'kind' | 'value'> | undefined {
  const a = field.indexOf(' ');
  const b = field.indexOf(' ', a + 1);
  if (a < 0 || b < 0) return undefined;
  const list = field.slice(0, a) as ListName;
  const kind = field.slice(a + 1, b) as EntryKind;
  if (!LIST_NAMES.includes(list) || !ENTRY_KINDS.includes(kind)) return undefined;
  return { list, kind, value: field.slice(b + 1) };
}

/** Who added an entry and when (ms), kept as the hash field's value. */
export const entryMetaSchema = z.object({ by: z.string(), at: z.number() });
export type EntryMeta = z.infer<typeof entryMetaSchema>;
