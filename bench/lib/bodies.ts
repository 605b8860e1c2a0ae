import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One verify request body, already serialized, with what it is (for the report). */
export interface BenchBody {
  readonly id: string;
  readonly label: string;
  readonly layout: string;
  readonly lang: string;
  /** The JSON text sent on the wire: {apiKey, formId, payload|fieldData}. */
  readonly json: string;
  readonly bytes: number;
  /** What the classifier sees (the route's fieldsOf: payload or fieldData). */
  readonly fields: Record<string, unknown>;
}

interface FormRow {
  id: string;
  label: string;
  layout: string;
  lang: string;
  fields: Record<string, unknown>;
}

export const BENCH_API_KEY = 'bench-key-not-secret';
export const BENCH_FORM_ID = 'bench-form';
export const BENCH_ORIGIN = 'https://bench.example.com';
export const MIN_BYTES = 200;
export const MAX_BYTES = 2048;

function readRows(repoRoot: string): FormRow[] {
  const rows: FormRow[] = [];
  // The first two files only: a fixed body set keeps runs comparable as the training data grows.
  for (const file of ['legitimate.jsonl', 'spam.jsonl']) {
    for (const line of readFileSync(path.join(repoRoot, 'data', 'forms', file), 'utf8').split('\n')) {
      if (line.trim() !== '') rows.push(JSON.parse(line) as FormRow);
    }
  }
  return rows;
}

/**
 * The realistic set: every hand-written form submission in data/forms whose request body is 0.2-2 KB, wrapped
 * into the verify envelope. Every 5th uses `fieldData` instead of `payload` (dynamic forms). Interleaved spam /
 * legitimate so any window of the load sees both.
 */
export function realisticBodies(repoRoot: string): BenchBody[] {
  const rows = readRows(repoRoot);
  const spam = rows.filter((r) => r.label === 'spam');
  const legit = rows.filter((r) => r.label !== 'spam');
  const mixed: FormRow[] = [];
  for (let i = 0; i < Math.max(spam.length, legit.length); i++) {
    if (i < legit.length) mixed.push(legit[i] as FormRow);
    if (i < spam.length) mixed.push(spam[i] as FormRow);
  }
  const out: BenchBody[] = [];
  for (const r of mixed) {
    const key = out.length % 5 === 4 ? 'fieldData' : 'payload';
    const json = JSON.stringify({ apiKey: BENCH_API_KEY, formId: BENCH_FORM_ID, [key]: r.fields });
    const bytes = Buffer.byteLength(json);
    if (bytes < MIN_BYTES || bytes > MAX_BYTES) continue;
    out.push({ id: r.id, label: r.label, layout: r.layout, lang: r.lang, json, bytes, fields: r.fields });
  }
  return out;
}

const NAMES = ['Ada Lovelace', 'Ben Okafor', 'Chloé Schmidt', 'Dmitri Tanaka', 'Emma García', 'Farid Novak', 'Grace Haddad', 'Hiro Larsen'];

/**
 * A stream of distinct bodies from `bodies` in turn: each one's longest text gets a sign-off of its own (a name, a
 * phone number, a running number), so no two requests carry the same text and the review store stores and indexes
 * every one (identical texts would merge into one campaign). Built by splicing strings at a precomputed offset, so the
 * load generator's cost per request stays small and the same for every target.
 */
export function distinctBodies(bodies: readonly BenchBody[]): () => string {
  const templates = bodies.map((b) => {
    let longest = '';
    const walk = (v: unknown): void => {
      if (typeof v === 'string') {
        if (v.length > longest.length) longest = v;
      } else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    walk(b.fields);
    const quoted = JSON.stringify(longest);
    const at = b.json.lastIndexOf(quoted);
    if (longest === '' || at < 0) throw new Error(`${b.id}: no text field to make distinct`);
    const cut = at + quoted.length - 1;
    return { head: b.json.slice(0, cut), tail: b.json.slice(cut) };
  });
  let n = 0;
  return () => {
    const t = templates[n % templates.length] as { head: string; tail: string };
    const i = n++;
    const phone = String((i * 7_919) % 1_000_000_000).padStart(9, '0');
    return `${t.head}\\n${NAMES[i % NAMES.length] as string}, +44 7${phone} (#${i})${t.tail}`;
  };
}

function textsOf(v: unknown, into: string[]): void {
  if (typeof v === 'string') into.push(v);
  else if (Array.isArray(v)) for (const x of v) textsOf(x, into);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) textsOf(x, into);
}

/**
 * The worst case: one submission whose request body is exactly `limit` bytes (BODY_LIMIT, 64 KiB by default,
 * envelope included): a 4-field contact form whose `message` is the text of every data/forms submission (spam
 * and legitimate, all languages, URLs, e-mails) joined with blank lines, cut and space-padded to the byte.
 */
export function worstCaseBody(repoRoot: string, limit = 64 * 1024): BenchBody {
  const texts: string[] = [];
  for (const r of readRows(repoRoot)) textsOf(r.fields, texts);
  const make = (message: string) => ({ name: 'Worst Case', email: 'worst.case@example.com', subject: 'Long message', message });
  const envelope = (message: string) => JSON.stringify({ apiKey: BENCH_API_KEY, formId: BENCH_FORM_ID, payload: make(message) });
  let message = '';
  for (let i = 0; Buffer.byteLength(envelope(message)) < limit; i++) message += (i === 0 ? '' : '\n\n') + texts[i % texts.length];
  message = fitMessage(message, envelope, limit, 'worst-case body');
  return {
    id: 'worst-case-64k',
    label: 'mixed',
    layout: 'basic',
    lang: 'mixed',
    json: envelope(message),
    bytes: limit,
    fields: make(message),
  };
}

/** `message` cut by characters until its envelope fits (escapes and UTF-8 make bytes != chars), then space-padded to exactly `limit` bytes. */
function fitMessage(message: string, envelope: (message: string) => string, limit: number, what: string): string {
  while (Buffer.byteLength(envelope(message)) > limit) message = message.slice(0, -1);
  // Never end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(message)) message = message.slice(0, -1);
  message += ' '.repeat(limit - Buffer.byteLength(envelope(message)));
  const bytes = Buffer.byteLength(envelope(message));
  if (bytes !== limit) throw new Error(`${what} is ${bytes} bytes, wanted ${limit}`);
  return message;
}

/**
 * Bodies built to be slow, each exactly `limit` bytes: one unit repeated to fill a message (link-packed text, one
 * endless word, dots that look like hosts, CJK without spaces, markup, ...), and two that fill the payload with
 * thousands of small fields. Measured in process only: they look for work that grows faster than the input.
 */
export function adversarialBodies(limit = 64 * 1024): BenchBody[] {
  const units: Record<string, string> = {
    'a.com/ repeated': 'a.com/',
    'https://x.com/a repeated': 'https://x.com/a ',
    'one endless word': 'a',
    'a. repeated': 'a.',
    'a . repeated': 'a . ',
    '" dot com " repeated': ' dot com ',
    'Chinese without spaces': '您好我想定做一个书架',
    'e-mail addresses': 'a@b.co ',
    '<a href=x> repeated': '<a href=x>',
    '{ repeated': '{',
  };
  const make = (message: string) => ({ name: 'Slow Case', email: 'slow.case@mail.test', message });
  const envelope = (message: string) => JSON.stringify({ apiKey: BENCH_API_KEY, formId: BENCH_FORM_ID, payload: make(message) });
  const out: BenchBody[] = [];
  for (const [id, unit] of Object.entries(units)) {
    const message = fitMessage(unit.repeat(Math.ceil(limit / Buffer.byteLength(unit))), envelope, limit, id);
    out.push(body(id, make(message), envelope(message), limit));
  }
  for (const [id, key, value] of [
    ['3,000-odd small fields', 'f', 'hello world'],
    ['phone fields named no_hp', 'no_hp', '0812 3456 7890'],
  ] as const) {
    const fields: Record<string, string> = {};
    const fieldsEnvelope = () => JSON.stringify({ apiKey: BENCH_API_KEY, formId: BENCH_FORM_ID, payload: fields });
    for (let i = 0; Buffer.byteLength(fieldsEnvelope()) < limit - 64; i++) fields[`${key}${i}`] = value;
    fields.pad = '';
    fields.pad = ' '.repeat(Math.max(0, limit - Buffer.byteLength(fieldsEnvelope())));
    out.push(body(id, fields, fieldsEnvelope(), limit));
  }
  return out;
}

function body(id: string, fields: Record<string, unknown>, json: string, limit: number): BenchBody {
  const bytes = Buffer.byteLength(json);
  if (bytes > limit) throw new Error(`${id}: body is ${bytes} bytes, over ${limit}`);
  return { id, label: 'spam', layout: 'adversarial', lang: 'mixed', json, bytes, fields };
}

export function describeSet(bodies: readonly BenchBody[]) {
  const sizes = bodies.map((b) => b.bytes).sort((a, b) => a - b);
  const count = (key: 'label' | 'layout' | 'lang') => {
    const m: Record<string, number> = {};
    for (const b of bodies) m[b[key]] = (m[b[key]] ?? 0) + 1;
    return m;
  };
  return {
    count: bodies.length,
    bytes: { min: sizes[0], median: sizes[Math.floor(sizes.length / 2)], max: sizes[sizes.length - 1] },
    labels: count('label'),
    layouts: Object.keys(count('layout')).length,
    langs: count('lang'),
  };
}
