/**
 * One-off import of the public corpora from ../shared/datasets into data/, as committed.
 * YouTube: AUTHOR and COMMENT_ID are dropped (real user names and ids); DATE, CONTENT, CLASS kept.
 * SMS: copied unchanged. Run again only to refresh the copies.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from '../training/data/csv-write.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const shared = path.resolve(root, '..', 'shared', 'datasets');

const ytIn = path.join(shared, 'youtube-spam-collection');
const ytOut = path.join(root, 'data', 'youtube');
mkdirSync(ytOut, { recursive: true });
for (const file of readdirSync(ytIn).filter((f) => f.endsWith('.csv'))) {
  const rows = parse(readFileSync(path.join(ytIn, file)), { columns: true, bom: true }) as Record<string, string>[];
  const out = [['DATE', 'CONTENT', 'CLASS'], ...rows.map((r) => [r.DATE ?? '', r.CONTENT ?? '', r.CLASS ?? ''])];
  writeFileSync(path.join(ytOut, file), stringify(out));
  console.log(`${file}: ${rows.length} rows`);
}
copyFileSync(path.join(ytIn, 'SOURCE.txt'), path.join(ytOut, 'SOURCE.txt'));

const smsIn = path.join(shared, 'sms-spam-collection');
const smsOut = path.join(root, 'data', 'sms');
mkdirSync(smsOut, { recursive: true });
for (const f of ['SMSSpamCollection.train.tsv', 'SOURCE.txt', 'readme']) copyFileSync(path.join(smsIn, f), path.join(smsOut, f));
console.log('sms copied');
