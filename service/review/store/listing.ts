import { randomBytes } from 'node:crypto';
import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { queryWords, wordHash } from '../text/words.ts';
import { parseJson, parseLabel, type StoreContext } from './context.ts';
import type { AccountKeys } from './keys.ts';

export type ListSort = 'oldest' | 'newest' | 'confidence-high' | 'confidence-low';

export interface ListQuery {
  readonly formId?: string | undefined;
  readonly status?: Label | undefined;
  /** receivedAt range, ms, both ends included. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly sort?: ListSort | undefined;
  /** Words or an e-mail address: every one must be in the submission (then form and verdict filters do not apply). */
  readonly search?: string | undefined;
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
}

export interface ListEntry {
  readonly item: ReviewJob;
  readonly label: LabelRecord | undefined;
  /** False for a submission that was not queued, whose fields were kept for reporting a miss. */
  readonly queued: boolean;
  /** How many identical submissions this item stands for (a campaign merged into it), itself included. */
  readonly campaign: number;
}

export interface ListPage {
  readonly entries: ListEntry[];
  /** How many match the query in all (the page is a slice of them). */
  readonly total: number;
}

export interface AccountCounts {
  readonly pending: number;
  readonly labelled: number;
  readonly byStatus: Record<Label, number>;
  readonly byForm: Record<string, number>;
}

/** Scratch keys live this long at most (a read deletes its own at once). */
const SCRATCH_MS = 10_000;

/**
 * The console's lists: pending items filtered, ranged by date, sorted by time or confidence, paged with a total;
 * and search over the words of every item (queued, or kept for reporting a miss). Every read is a few sorted-set
 * range commands whatever the number of items (see docs/review.md, "Search and lists at scale").
 */
export class Listing {
  constructor(private readonly ctx: StoreContext) {}

  async counts(accountId: string): Promise<AccountCounts> {
    const k = this.ctx.keys.forAccount(accountId);
    const forms = await this.ctx.forms(accountId);
    const p = this.ctx.redis.pipeline();
    p.zcard(k.pending());
    p.zcard(k.labelled());
    p.zcard(k.pending({ status: 'spam' }));
    p.zcard(k.pending({ status: 'legitimate' }));
    for (const formId of forms) p.zcard(k.pending({ formId }));
    const r = ((await p.exec()) ?? []).map(([err, n]) => {
      if (err) throw err;
      return Number(n);
    });
    const byForm: Record<string, number> = {};
    forms.forEach((formId, i) => (byForm[formId] = r[4 + i] ?? 0));
    return { pending: r[0] ?? 0, labelled: r[1] ?? 0, byStatus: { spam: r[2] ?? 0, legitimate: r[3] ?? 0 }, byForm };
  }

  async list(accountId: string, q: ListQuery): Promise<ListPage> {
    return q.search !== undefined && q.search.trim() !== '' ? this.#search(accountId, q, q.search) : this.#pending(accountId, q);
  }

  async #pending(accountId: string, q: ListQuery): Promise<ListPage> {
    const { redis } = this.ctx;
    const k = this.ctx.keys.forAccount(accountId);
    const filter = { formId: q.formId, status: q.status };
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 50;
    const min = q.from === undefined ? '-inf' : String(q.from);
    const max = q.to === undefined ? '+inf' : String(q.to);
    const ranged = q.from !== undefined || q.to !== undefined;
    const sort = q.sort ?? 'oldest';
    let ids: string[];
    let total: number;
    if (sort === 'oldest' || sort === 'newest') {
      const index = k.pending(filter);
      [ids, total] = await Promise.all([
        sort === 'oldest'
          ? redis.zrange(index, min, max, 'BYSCORE', 'LIMIT', offset, limit)
          : redis.zrange(index, max, min, 'BYSCORE', 'REV', 'LIMIT', offset, limit),
        ranged ? redis.zcount(index, min, max) : redis.zcard(index),
      ]);
    } else {
      const rev = sort === 'confidence-high';
      let index = k.pendingByConfidence(filter);
      let scratch: string[] = [];
      if (ranged) {
        // Confidence order within a date range: the range's members, scored by confidence (one intersection).
        scratch = [k.scratch(randomBytes(8).toString('hex')), k.scratch(randomBytes(8).toString('hex'))];
        const [inRange, byConfidence] = scratch as [string, string];
        await redis
          .multi()
          .zrangestore(inRange, k.pending(filter), min, max, 'BYSCORE')
          .zinterstore(byConfidence, 2, inRange, index, 'WEIGHTS', 0, 1)
          .pexpire(byConfidence, SCRATCH_MS)
          .del(inRange)
          .exec();
        index = byConfidence;
      }
      try {
        const [start, stop] = [String(offset), String(offset + limit - 1)];
        [ids, total] = await Promise.all([
          rev ? redis.zrange(index, start, stop, 'REV') : redis.zrange(index, start, stop),
          redis.zcard(index),
        ]);
      } finally {
        if (scratch.length > 0) await redis.del(...scratch);
      }
    }
    const items = await this.ctx.items(k, ids);
    const gone = ids.filter((_, i) => items[i] === undefined);
    if (gone.length > 0) await this.#forget(k, filter, gone);
    const [labels, campaigns] = await Promise.all([this.#labels(k, ids), this.#campaigns(k, ids)]);
    const entries: ListEntry[] = [];
    items.forEach((item, i) => item !== undefined && entries.push({ item, label: labels[i], queued: true, campaign: campaigns[i] ?? 1 }));
    return { entries, total: Math.max(0, total - gone.length) };
  }

  async #search(accountId: string, q: ListQuery, text: string): Promise<ListPage> {
    const words = queryWords(text);
    if (words === undefined) return { entries: [], total: 0 };
    const { redis } = this.ctx;
    const k = this.ctx.keys.forAccount(accountId);
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 50;
    const oldest = q.sort === 'oldest';
    const cutoff = this.ctx.now() - this.ctx.retentionMs;
    const min = String(Math.max(cutoff, q.from ?? -Infinity));
    const max = q.to === undefined ? '+inf' : String(q.to);
    const scratch: string[] = [];
    // One posting list per kind (queued items, kept fields): a word's own, or the intersection of the query's words.
    const source = async (kind: 'item' | 'kept'): Promise<string> => {
      const lists = words.map((w) => k.word(wordHash(w), kind));
      if (lists.length === 1) return lists[0] as string;
      const key = k.scratch(randomBytes(8).toString('hex'));
      scratch.push(key);
      await redis
        .multi()
        .zinterstore(key, lists.length, ...lists, 'AGGREGATE', 'MAX')
        .pexpire(key, SCRATCH_MS)
        .exec();
      return key;
    };
    try {
      const sources = [await source('item'), await source('kept')];
      // Both kinds, each cut to what the page can need, merged by time: a page costs two ranges whatever the totals.
      const ranges = await Promise.all(
        sources.map((key) =>
          oldest
            ? redis.zrange(key, min, max, 'BYSCORE', 'LIMIT', 0, offset + limit, 'WITHSCORES')
            : redis.zrange(key, max, min, 'BYSCORE', 'REV', 'LIMIT', 0, offset + limit, 'WITHSCORES'),
        ),
      );
      const totals = await Promise.all(sources.map((key) => redis.zcount(key, min, max)));
      const merged: { id: string; at: number; kind: 'item' | 'kept' }[] = [];
      ranges.forEach((flat, s) => {
        for (let i = 0; i < flat.length; i += 2)
          merged.push({ id: flat[i] as string, at: Number(flat[i + 1]), kind: s === 0 ? 'item' : 'kept' });
      });
      merged.sort((a, b) => (oldest ? a.at - b.at : b.at - a.at));
      const seen = new Set<string>();
      const page = merged.filter((m) => !seen.has(m.id) && seen.add(m.id)).slice(offset, offset + limit);
      const entries = await this.#entries(k, page);
      return { entries, total: (totals[0] ?? 0) + (totals[1] ?? 0) - (page.length - entries.length) };
    } finally {
      if (scratch.length > 0) await redis.del(...scratch);
    }
  }

  /** Each item's campaign size: one SCARD per item, pipelined (a set exists only once a duplicate was merged). */
  async #campaigns(k: AccountKeys, ids: readonly string[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const p = this.ctx.redis.pipeline();
    for (const id of ids) p.scard(k.campaign(id));
    return ((await p.exec()) ?? []).map(([err, n]) => (err ? 1 : Number(n) + 1));
  }

  /** Search hits as entries: a reported miss is an item by now, a kept submission shows its kept fields. */
  async #entries(k: AccountKeys, page: { id: string; kind: 'item' | 'kept' }[]): Promise<ListEntry[]> {
    if (page.length === 0) return [];
    const ids = page.map((p) => p.id);
    const [items, kept, labels, campaigns] = await Promise.all([
      this.ctx.items(k, ids),
      this.ctx.redis.mget(...ids.map((id) => k.kept(id))),
      this.#labels(k, ids),
      this.#campaigns(k, ids),
    ]);
    const out: ListEntry[] = [];
    page.forEach((_, i) => {
      const item = items[i];
      if (item !== undefined) return void out.push({ item, label: labels[i], queued: true, campaign: campaigns[i] ?? 1 });
      const raw = kept[i];
      const parsed = raw === null || raw === undefined ? undefined : reviewJobSchema.safeParse(parseJson(raw));
      if (parsed?.success) out.push({ item: parsed.data, label: undefined, queued: false, campaign: 1 });
    });
    return out;
  }

  async #labels(k: AccountKeys, ids: string[]): Promise<(LabelRecord | undefined)[]> {
    if (ids.length === 0) return [];
    return (await this.ctx.redis.mget(...ids.map((id) => k.label(id)))).map((raw) => parseLabel(raw ?? null));
  }

  /** Index entries whose item expired: dropped from the index read (the sweep gets the rest). */
  async #forget(k: AccountKeys, filter: { formId?: string | undefined; status?: Label | undefined }, ids: string[]): Promise<void> {
    await this.ctx.redis
      .multi()
      .zrem(k.pending(filter), ...ids)
      .zrem(k.pendingByConfidence(filter), ...ids)
      .exec();
  }
}
