// npx tsx bench/experiments/near-groups.ts
// How well the near-duplicate fingerprint (service/review/text/near-print.ts) groups: on the labelled forms in
// data/forms, (1) how many pairs of different submissions to one form it would group (a false merge; a merge across
// labels is the harmful kind, as one action labels a group), and (2) how many copies of each submission with its names,
// numbers, addresses and links varied it groups with the original. Figures for docs/review.md, not a test.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { MIN_SHARED, nearPrint, sharedValues, type NearPrint } from '../../service/review/text/near-print.ts';

interface Rec {
  id: string;
  label: 'spam' | 'legitimate';
  layout: string;
  kind?: string;
  fields: Record<string, unknown>;
}

const dir = path.join(import.meta.dirname, '..', '..', 'data', 'forms');
const records: Rec[] = [];
for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')))
  for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line.trim() !== '') records.push(JSON.parse(line) as Rec);

/** Grouped as the store groups: a shared band nominates, MIN_SHARED signature values decide. */
function grouped(a: NearPrint, b: NearPrint): boolean {
  return a.bands.some((x) => b.bands.includes(x)) && sharedValues(a.signature, b.signature) >= MIN_SHARED;
}

// (1) False merges: every pair of different records sent to the same form (their layout stands for the form).
const prints = records.map((r) => ({ r, p: nearPrint(r.layout, r.fields) }));
const printed = prints.filter((x) => x.p !== undefined) as { r: Rec; p: NearPrint }[];
const byForm = new Map<string, { r: Rec; p: NearPrint }[]>();
for (const x of printed) byForm.set(x.r.layout, [...(byForm.get(x.r.layout) ?? []), x]);
let pairs = 0;
let merged = 0;
let crossLabel = 0;
const examples: string[] = [];
for (const list of byForm.values())
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const a = list[i] as { r: Rec; p: NearPrint };
      const b = list[j] as { r: Rec; p: NearPrint };
      pairs++;
      if (!grouped(a.p, b.p)) continue;
      merged++;
      if (a.r.label !== b.r.label) crossLabel++;
      if (examples.length < 12) examples.push(`${a.r.id} (${a.r.label}/${a.r.kind}) ~ ${b.r.id} (${b.r.label}/${b.r.kind})`);
    }

// (1b) The same, as if every record had been sent to one form: candidate pairs from shared bands, as the store finds them.
const oneForm = records.map((r) => ({ r, p: nearPrint('one-form', r.fields) })).filter((x) => x.p !== undefined) as {
  r: Rec;
  p: NearPrint;
}[];
const buckets = new Map<string, number[]>();
oneForm.forEach((x, i) => x.p.bands.forEach((b) => buckets.set(b, [...(buckets.get(b) ?? []), i])));
const seen = new Set<string>();
let mergedAll = 0;
let crossAll = 0;
for (const list of buckets.values())
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const key = `${list[i] as number} ${list[j] as number}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const a = oneForm[list[i] as number] as { r: Rec; p: NearPrint };
      const b = oneForm[list[j] as number] as { r: Rec; p: NearPrint };
      if (sharedValues(a.p.signature, b.p.signature) < MIN_SHARED) continue;
      mergedAll++;
      if (a.r.label !== b.r.label) crossAll++;
    }
const allPairs = (oneForm.length * (oneForm.length - 1)) / 2;

// (2) Near-duplicates: each record, five times, with names, numbers, addresses and link hosts replaced.
const NAMES = ['Olivia', 'Mateo', 'Priya', 'Kenji', 'Amara', 'Lukas', 'Sofia', 'Omar', 'Chloe', 'Ivan'];
const HOSTS = ['best-deal', 'top-offer', 'cheap-now', 'win-big', 'promo-hub', 'fast-cash', 'seo-rank', 'go-shop'];
let seq = 1;
function vary(text: string, name: string): string {
  seq++;
  return text
    .replace(/https?:\/\/[^\s/]+/g, () => `https://${HOSTS[seq % HOSTS.length] as string}-${seq}.example`)
    .replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, () => `${name.toLowerCase()}${seq}@mail${seq % 7}.example`)
    .replace(/\d+/g, () => String((seq * 7919) % 100000));
}
function variant(fields: Record<string, unknown>, k: number): Record<string, unknown> {
  const name = NAMES[k % NAMES.length] as string;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') out[key] = value;
    else if (/name/i.test(key)) out[key] = `${name} ${NAMES[(k + 3) % NAMES.length] as string}`;
    else out[key] = vary(value, name);
  }
  return out;
}
let variants = 0;
let found = 0;
let tooShort = 0;
for (const { r, p } of prints) {
  if (p === undefined) {
    tooShort++;
    continue;
  }
  for (let k = 0; k < 5; k++) {
    const q = nearPrint(r.layout, variant(r.fields, k));
    variants++;
    if (q !== undefined && grouped(p, q)) found++;
  }
}

const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(2)}%`;
process.stdout.write(
  [
    `records: ${records.length} (${tooShort} with too few words to fingerprint), forms (layouts): ${byForm.size}, MIN_SHARED ${MIN_SHARED}`,
    `false merges: ${merged} of ${pairs} same-form pairs (${pct(merged, pairs)}); across labels: ${crossLabel} (${pct(crossLabel, pairs)})`,
    `as one form: ${mergedAll} of ${allPairs} pairs (${pct(mergedAll, allPairs)}); across labels: ${crossAll}`,
    `near-duplicates grouped with their original: ${found} of ${variants} (${pct(found, variants)})`,
    'merged pairs (first 12):',
    ...examples.map((e) => `  ${e}`),
    '',
  ].join('\n'),
);
