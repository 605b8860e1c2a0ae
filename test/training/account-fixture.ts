import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../core/fs/repo-root.ts';

/** One comment of test/fixtures/accounts/site.jsonl: `promo` advertises the commenter's channel. */
export interface SiteItem {
  readonly id: string;
  readonly kind: 'promo' | 'genuine';
  readonly comment: string;
}

export const SITE: readonly SiteItem[] = readFileSync(path.join(repoRoot, 'test/fixtures/accounts/site.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as SiteItem);

/** The site's first comments are labelled; the rest arrive later and are scored. */
export const LABELLED = 60;

export type Policy = (item: SiteItem) => 'spam' | 'legitimate';
/** Self-promotion is spam: what most sites want. */
export const PROMO_IS_SPAM: Policy = (i) => (i.kind === 'promo' ? 'spam' : 'legitimate');
/** Self-promotion is welcome: a site that allows it. */
export const ALL_WELCOME: Policy = () => 'legitimate';

/** A submission id per account and item, stable from run to run (a UUID's shape, from a hash). */
function submissionId(account: string, item: string): string {
  const h = createHash('sha256').update(`${account}/${item}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A data folder: the training fixture's forms, and each named account's labels on the site's first LABELLED comments
 * (as `npm run labels:export` writes them) under labels/.
 */
export function dataDir(accounts: Readonly<Record<string, Policy>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'formguard-accounts-'));
  mkdirSync(path.join(dir, 'forms'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/training/forms/mini.jsonl'), path.join(dir, 'forms/mini.jsonl'));
  const lines: string[] = [];
  for (const [accountId, policy] of Object.entries(accounts)) {
    SITE.slice(0, LABELLED).forEach((item, i) => {
      lines.push(
        JSON.stringify({
          submissionId: submissionId(accountId, item.id),
          accountId,
          formId: `${accountId}-comments`,
          label: policy(item),
          fields: { comment: item.comment },
          labelledAt: new Date(Date.UTC(2026, 10, 20, 9, 0, i)).toISOString(),
          moderatorId: `${accountId}-mod`,
        }),
      );
    });
  }
  if (lines.length > 0) {
    mkdirSync(path.join(dir, 'labels'));
    writeFileSync(path.join(dir, 'labels/2026-11-20.jsonl'), `${lines.join('\n')}\n`);
  }
  return dir;
}
