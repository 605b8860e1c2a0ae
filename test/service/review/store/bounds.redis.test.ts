import { describe, expect, it } from 'vitest';
import { exportLabels } from '../../../../cli/lib/label-files/export-labels.ts';
import type { StoreOptions } from '../../../../service/review/store/context.ts';
import { EVICT_PER_INGEST, TRIM_PER_CALL } from '../../../../service/review/store/items.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { fakeJob } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

// What the review store keeps per submission is bounded per account by a count as well as by an age: what falls out is
// deleted in the script that writes, and every structure of an evicted or dropped item goes with it.
const keys = useTestRedis('bounds');
const redis = keys.redis;

function newStore(opts: Partial<StoreOptions> = {}): ReviewStore {
  return new ReviewStore(redis, { prefix: keys.prefix(), retentionDays: 30, keepFieldsDays: 3, ...opts });
}

/** The same data under other settings: a restart with a lowered cap. */
function sameStore(store: ReviewStore, opts: Partial<StoreOptions>): ReviewStore {
  return new ReviewStore(redis, { prefix: store.keys.prefix, retentionDays: 30, keepFieldsDays: 3, ...opts });
}

async function keysMatching(store: ReviewStore, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${store.keys.prefix}:${pattern}`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('submissions that were not queued', () => {
  it('keep the fields of the newest N and the verdicts of the newest M per account, found by search within them', async () => {
    const store = newStore({ keepFieldsMax: 100, lookupMax: 150, keepFieldsMaxFor: (a) => (a === 'small' ? 10 : undefined) });
    const t0 = Date.now() - 3_600_000;
    const jobs = Array.from({ length: 250 }, (_, i) =>
      fakeJob({
        status: 'legitimate',
        confidence: 0.97,
        receivedAt: new Date(t0 + i * 1000).toISOString(),
        fields: { message: `order ${i} of walnut tables`, email: `buyer${i}@example.org` },
      }),
    );
    // Remembered in one turn, as the sink hands them over: one script call per account.
    await Promise.all(jobs.map((j) => store.items.remember(j)));
    const k = store.keys.forAccount('acme');
    expect(await redis.hlen(k.kept())).toBe(100);
    expect(await redis.zcard(k.keptAt())).toBe(100);
    expect(await redis.hlen(k.search())).toBe(100);
    expect(await redis.hlen(k.seen())).toBe(150);
    expect(await redis.zcard(k.seenAt())).toBe(150);
    expect(await store.items.get('acme', jobs[249]!.submissionId)).toMatchObject({ fieldsKept: true, queued: false });
    expect(await store.items.get('acme', jobs[120]!.submissionId)).toMatchObject({ fieldsKept: false, item: { fields: {} } });
    expect(await store.items.get('acme', jobs[50]!.submissionId)).toBeUndefined();

    const hits = await store.listing.list('acme', { search: 'walnut', limit: 500 });
    expect(hits.total).toBe(100);
    expect(hits.entries[0]?.item.submissionId).toBe(jobs[249]!.submissionId);
    expect((await store.listing.list('acme', { search: 'buyer200@example.org' })).entries.map((e) => e.item.submissionId)).toEqual([
      jobs[200]!.submissionId,
    ]);
    expect((await store.listing.list('acme', { search: 'buyer20@example.org' })).total).toBe(0);

    // An account's own cap (the tenants file's review.keepFieldsMax).
    await Promise.all(jobs.slice(0, 30).map((j) => store.items.remember({ ...j, accountId: 'small' })));
    expect(await redis.hlen(store.keys.forAccount('small').kept())).toBe(10);
  });

  it('a lowered cap is reached over several calls: one remember call drops at most TRIM_PER_CALL of each, the sweep the rest', async () => {
    const big = newStore({ keepFieldsMax: 5_000, lookupMax: 5_000 });
    const t0 = Date.now() - 3_600_000;
    const job = (i: number) =>
      fakeJob({ status: 'legitimate', receivedAt: new Date(t0 + i * 100).toISOString(), fields: { message: `note ${i}` } });
    const n = TRIM_PER_CALL + 600;
    await Promise.all(Array.from({ length: n }, (_, i) => big.items.remember(job(i))));
    const k = big.keys.forAccount('acme');
    expect(await redis.hlen(k.kept())).toBe(n);
    const small = sameStore(big, { keepFieldsMax: 10, lookupMax: 20 });
    // One submission, one script call: it adds one and drops at most TRIM_PER_CALL of each structure.
    await small.items.remember(job(n));
    expect(await redis.hlen(k.kept())).toBe(n + 1 - TRIM_PER_CALL);
    expect(await redis.zcard(k.keptAt())).toBe(n + 1 - TRIM_PER_CALL);
    expect(await redis.hlen(k.search())).toBe(n + 1 - TRIM_PER_CALL);
    expect(await redis.hlen(k.seen())).toBe(n + 1 - TRIM_PER_CALL);
    await small.items.trimRemembered('acme');
    expect(await redis.hlen(k.kept())).toBe(10);
    expect(await redis.hlen(k.search())).toBe(10);
    expect(await redis.hlen(k.seen())).toBe(20);
    expect(await redis.zcard(k.seenAt())).toBe(20);
  });

  it('keep no fields past the keep-fields window, and the sweep trims an account that stopped sending', async () => {
    let now = Date.now();
    const store = newStore({ now: () => now });
    const old = fakeJob({ status: 'legitimate', receivedAt: new Date(now - 4 * 86_400_000).toISOString() });
    const recent = fakeJob({ status: 'legitimate', receivedAt: new Date(now - 60_000).toISOString() });
    await Promise.all([store.items.remember(old), store.items.remember(recent)]);
    expect(await store.items.get('acme', old.submissionId)).toMatchObject({ fieldsKept: false });
    expect(await store.items.get('acme', recent.submissionId)).toMatchObject({ fieldsKept: true });
    await store.items.ingest(fakeJob());
    now += 3 * 86_400_000;
    await store.retention.sweep();
    const k = store.keys.forAccount('acme');
    expect(await redis.hlen(k.kept())).toBe(0);
    // The queued item's line stays (within retention); the kept one's went.
    expect(await redis.hlen(k.search())).toBe(1);
    expect(await store.items.get('acme', recent.submissionId)).toMatchObject({ fieldsKept: false });
  });
});

describe('queued items', () => {
  it('past the pending cap, an evicted item leaves nothing behind: indexes by time, confidence and form, search line, fingerprint', async () => {
    const store = newStore({ maxPending: 5, campaignWindowMs: 600_000 });
    const t0 = Date.now() - 600_000;
    for (let i = 0; i < 20; i++) {
      const job = fakeJob({
        formId: i % 2 === 0 ? 'contact' : 'quote:form',
        receivedAt: new Date(t0 + i * 1000).toISOString(),
        status: i % 3 === 0 ? 'legitimate' : 'spam',
        confidence: 0.5 + i / 100,
        fields: { message: `distinct offer number ${i}` },
      });
      expect(await store.items.ingest(job)).toBe('stored');
    }
    const zsets = [...(await keysMatching(store, 'review:{acme}:pending*'))];
    expect(zsets.length).toBeGreaterThanOrEqual(8);
    let entries = 0;
    for (const key of zsets) entries += await redis.zcard(key);
    const k = store.keys.forAccount('acme');
    // Each of the 5 live items is in 8 indexes: all, its verdict, its form, both; by time and by confidence.
    expect(entries).toBe(5 * 8);
    expect(await redis.hlen(k.search())).toBe(5);
    expect(await keysMatching(store, 'review:{acme}:fingerprint:*')).toHaveLength(5);
    expect(await keysMatching(store, 'review:{acme}:item:*')).toHaveLength(5);
  });

  it('a lowered pending cap: each ingest evicts at most EVICT_PER_INGEST, and the cap is reached over the next ingests', async () => {
    const evicted: number[] = [];
    const big = newStore({ maxPending: 100 });
    const t0 = Date.now() - 600_000;
    const job = (i: number) =>
      fakeJob({ receivedAt: new Date(t0 + i * 1000).toISOString(), status: 'spam', fields: { message: `distinct offer ${i}` } });
    for (let i = 0; i < 40; i++) await big.items.ingest(job(i));
    const small = sameStore(big, { maxPending: 5, onEvicted: (count) => evicted.push(count) });
    await small.items.ingest(job(40));
    expect(evicted).toEqual([EVICT_PER_INGEST]);
    expect((await small.items.counts('acme')).pending).toBe(41 - EVICT_PER_INGEST);
    for (let i = 41; i < 50; i++) await small.items.ingest(job(i));
    expect(Math.max(...evicted)).toBe(EVICT_PER_INGEST);
    expect((await small.items.counts('acme')).pending).toBe(5);
    expect(await redis.hlen(small.keys.forAccount('acme').search())).toBe(5);
  });

  it('labelled items past the cap go once exported, oldest first; those not exported are kept and counted', async () => {
    const over: number[] = [];
    // A clock that moves on every read: two labels in one millisecond would tie, and "oldest first" would be a coin toss.
    let t = Date.now();
    const store = newStore({ maxLabelled: 3, onLabelsOverCap: (_, n) => over.push(n), now: () => ++t });
    const jobs = Array.from({ length: 6 }, () => fakeJob());
    for (const job of jobs) {
      await store.items.ingest(job);
      await store.labels.label('acme', job.submissionId, 'spam', 'alice');
    }
    expect(await store.exports.trimLabelled('acme')).toEqual({ dropped: 0, overCap: 3 });
    expect(over).toEqual([3]);
    const dir = await tempDir('bounds-labels');
    try {
      expect((await exportLabels(store.exports, dir.dir)).written).toBe(6);
    } finally {
      await dir.remove();
    }
    expect(await store.items.counts('acme')).toEqual({ pending: 0, labelled: 3, shed: 0 });
    const left = await Promise.all(jobs.map((j) => store.items.get('acme', j.submissionId)));
    expect(left.map((e) => e !== undefined)).toEqual([false, false, false, true, true, true]);
    expect(await redis.hlen(store.keys.forAccount('acme').search())).toBe(3);
  });
});
