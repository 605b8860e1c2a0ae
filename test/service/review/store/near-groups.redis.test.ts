import { describe, expect, it } from 'vitest';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import type { StoreOptions } from '../../../../service/review/store/context.ts';
import { fakeJob } from '../helpers.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { floodFields, VARIED_MESSAGES } from '../near-flood.ts';

const keys = useTestRedis('near');
const redis = keys.redis;

function newStore(opts: Partial<StoreOptions> = {}): ReviewStore {
  return new ReviewStore(redis, { prefix: keys.prefix(), retentionDays: 30, campaignWindowMs: 600_000, ...opts });
}

const flood = (n: number) => Array.from({ length: n }, (_, i) => fakeJob({ fields: floodFields(i) }));
const others = () =>
  VARIED_MESSAGES.map((message, i) =>
    fakeJob({ fields: { name: `Person ${i}`, message }, status: i % 3 === 0 ? 'spam' : 'legitimate', confidence: 0.6 }),
  );

describe('similar submissions to one account', () => {
  it('are one row with its count and examples, labelled as one and undone as one', async () => {
    const store = newStore();
    const run = flood(200);
    const rest = others();
    const results: string[] = [];
    // Interleaved, as a flood arrives among everyone else's posts.
    for (let i = 0; i < run.length; i++) {
      results.push(await store.items.ingest(run[i] as (typeof run)[number]));
      const other = rest[i / 10];
      if (i % 10 === 0 && other !== undefined) results.push(await store.items.ingest(other));
    }
    expect(results.filter((r) => r === 'grouped')).toHaveLength(199);
    expect(results.filter((r) => r === 'stored')).toHaveLength(21);

    const page = await store.listing.list('acme', { limit: 100 });
    expect(page.total).toBe(21);
    const leader = run[0]?.submissionId as string;
    const row = page.entries.find((e) => e.item.submissionId === leader);
    expect(row?.group.size).toBe(200);
    expect(row?.group.examples.map((x) => x.submissionId)).toEqual(run.slice(1, 4).map((j) => j.submissionId));
    expect(page.entries.filter((e) => e.group.size > 1)).toHaveLength(1);
    // Each member is an item of its own: found by search, opened by its id.
    expect((await store.items.get('acme', run[150]?.submissionId as string))?.queued).toBe(true);

    const ids = await store.near.expand('acme', [leader]);
    expect(new Set(ids)).toEqual(new Set(run.map((j) => j.submissionId)));
    expect((await store.bulk.label('acme', ids, 'spam', 'alice')).labelled).toBe(200);
    expect(await store.items.counts('acme')).toEqual({ pending: 20, labelled: 200, shed: 0 });

    expect(await store.labels.undo('acme', 'alice')).toEqual({ kind: 'undone-bulk', undone: 200, relabelled: 0 });
    const back = await store.listing.list('acme', { limit: 100 });
    expect(back.total).toBe(21);
    expect(back.entries.find((e) => e.item.submissionId === leader)?.group.size).toBe(200);
  });

  it('keeps exact duplicates as a campaign of one item beside a group', async () => {
    const store = newStore();
    const same = floodFields(0);
    for (let i = 0; i < 30; i++) await store.items.ingest(fakeJob({ fields: { ...same } }));
    await store.items.ingest(fakeJob({ fields: floodFields(1) }));
    const page = await store.listing.list('acme', {});
    expect(page.entries.map((e) => [e.campaign, e.group.size])).toEqual([[30, 2]]);
  });

  it('puts a member labelled alone and undone back in its group, not in the list', async () => {
    const store = newStore();
    const run = flood(5);
    for (const job of run) await store.items.ingest(job);
    const member = run[2]?.submissionId as string;
    await store.labels.label('acme', member, 'spam', 'alice');
    expect((await store.listing.list('acme', {})).total).toBe(1);
    expect((await store.labels.undo('acme', 'alice')).kind).toBe('undone');
    const page = await store.listing.list('acme', {});
    expect(page.entries.map((e) => [e.item.submissionId, e.group.size])).toEqual([[run[0]?.submissionId, 5]]);
  });

  it('groups at most REVIEW_NEAR_MEMBERS_MAX members per account: past it, a similar post is a row of its own', async () => {
    const store = newStore({ nearMembersMax: 10 });
    const results: string[] = [];
    for (const job of flood(15)) results.push(await store.items.ingest(job));
    expect(results.filter((r) => r === 'grouped')).toHaveLength(10);
    const page = await store.listing.list('acme', {});
    expect(page.total).toBe(5);
    expect(await redis.zcard(`${store.keys.forAccount('acme').base}:near:members`)).toBe(10);
  });

  it('keeps at most REVIEW_NEAR_GROUPS_MAX leaders in the band index', async () => {
    const store = newStore({ nearGroupsMax: 3 });
    for (const [i, message] of VARIED_MESSAGES.entries()) await store.items.ingest(fakeJob({ fields: { name: `P ${i}`, message } }));
    const base = store.keys.forAccount('acme').base;
    expect(await redis.zcard(`${base}:near:leaders`)).toBe(3);
    expect(await redis.hlen(`${base}:near:sig`)).toBe(3);
    expect(await redis.hlen(`${base}:near:bands`)).toBeLessThanOrEqual(3 * 16);
  });

  it('groups nothing with the campaign window off', async () => {
    const store = newStore({ campaignWindowMs: 0 });
    for (const job of flood(5)) expect(await store.items.ingest(job)).toBe('stored');
  });
});
