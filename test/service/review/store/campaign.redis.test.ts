import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportLabels } from '../../../../cli/lib/label-files/export-labels.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { fakeJob } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const keys = useTestRedis('campaign');
const redis = keys.redis;

function newStore(opts: { campaignWindowMs?: number; maxPending?: number; onEvicted?: (n: number) => void } = {}): ReviewStore {
  return new ReviewStore(redis, { prefix: keys.prefix(), retentionDays: 30, ...opts });
}

describe('a spam flood to one account', () => {
  it('becomes one review item with a count and its submissionIds; labelling it once exports one label line', async () => {
    const store = newStore({ campaignWindowMs: 60_000 });
    const text = 'Cheap backlinks!! Rank #1 on Google: http://seo.example.top';
    const flood = Array.from({ length: 50 }, (_, i) =>
      // Case and white space vary, as they do in a run of posts; the normalised text is the same.
      fakeJob({ fields: { name: 'SEO Team', message: i % 2 === 0 ? text : `  ${text.toUpperCase()}\n` } }),
    );
    const other = fakeJob({ fields: { name: 'Ann', message: 'Do you deliver to Leeds?' }, status: 'legitimate', confidence: 0.6 });
    const results = [];
    for (const job of flood) results.push(await store.items.ingest(job));
    results.push(await store.items.ingest(other));
    // A replay of a merged submission (spool, retry) changes nothing.
    results.push(await store.items.ingest(flood[7] as (typeof flood)[number]));
    expect(results.filter((r) => r === 'stored')).toHaveLength(2);
    expect(results.filter((r) => r === 'merged')).toHaveLength(49);
    expect(results.at(-1)).toBe('duplicate');

    expect(await store.items.counts('acme')).toEqual({ pending: 2, labelled: 0, shed: 0 });
    const leader = flood[0]?.submissionId as string;
    const campaign = await store.items.campaign('acme', leader);
    expect(campaign.count).toBe(50);
    expect(new Set(campaign.submissionIds)).toEqual(new Set(flood.map((j) => j.submissionId)));
    // The console's list says how many submissions each item stands for.
    const page = await store.listing.list('acme', {});
    expect(page.entries.map((e) => [e.item.submissionId, e.campaign])).toEqual([
      [leader, 50],
      [other.submissionId, 1],
    ]);

    expect(await store.labels.label('acme', leader, 'spam', 'alice')).toBeDefined();
    expect(await store.items.counts('acme')).toEqual({ pending: 1, labelled: 1, shed: 0 });
    const out = await tempDir('campaign-labels');
    try {
      expect((await exportLabels(store.exports, out.dir)).written).toBe(1);
      const [file] = await readdir(out.dir);
      const lines = (await readFile(path.join(out.dir, file as string), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ submissionId: leader, label: 'spam' });
    } finally {
      await out.remove();
    }

    // Once labelled, the campaign is closed: the same text again is a new item to review.
    expect(await store.items.ingest(fakeJob({ fields: { name: 'SEO Team', message: text } }))).toBe('stored');
  });

  it('keeps an account under its pending cap, evicting the spam verdicts the model was surest of first, and counts them', async () => {
    let evicted = 0;
    const store = newStore({ maxPending: 5, onEvicted: (n) => (evicted += n) });
    const t0 = Date.now() - 60_000;
    const at = (i: number) => new Date(t0 + i * 1000).toISOString();
    // Oldest first would evict spam 0, 1 and 2; surest first evicts 1 (0.99), 0 (0.97) and 3 (0.95).
    const sureness = [0.97, 0.99, 0.91, 0.95];
    const spam = sureness.map((confidence, i) => fakeJob({ receivedAt: at(i), confidence, fields: { message: `spam ${i}` } }));
    const unsure = Array.from({ length: 4 }, (_, i) =>
      fakeJob({ receivedAt: at(10 + i), status: 'legitimate', confidence: 0.6, fields: { message: `unsure ${i}` } }),
    );
    for (const job of [...spam, ...unsure]) expect(await store.items.ingest(job)).toBe('stored');
    expect(evicted).toBe(3);
    expect((await store.items.counts('acme')).pending).toBe(5);
    const kept = (await store.items.listPending('acme', {}, 0, 50)).map((j) => j.submissionId);
    // The three surest spam verdicts went; the least sure one and every low-confidence one stayed.
    expect(kept).toEqual([spam[2], ...unsure].map((j) => j?.submissionId));
  });
});
