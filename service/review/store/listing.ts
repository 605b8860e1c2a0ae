import { randomBytes } from 'node:crypto';
import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { queryWords } from '../text/words.ts';
import { evalScript, SCRIPTS } from './scripts.ts';
import { parseJson, parseLabel, type StoreContext } from './context.ts';
import type { AccountKeys } from './keys.ts';
import { NearGroups } from './near-groups.ts';

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
  /** The similar submissions grouped with this item (near-groups.ts), itself included, and a few of the others. */
  readonly group: { readonly size: number; readonly examples: readonly ReviewJob[] };
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

const ALONE: ListEntry['group'] = { size: 1, examples: [] };
/** Scratch keys live this long at most (a read deletes its own at once). */
const SCRATCH_MS = 10_000;
/** Search lines one search step scans (HSCAN COUNT): a step stays well under a millisecond or two of Redis time. */
const SEARCH_STEP = 1_000;

/**
 * The console's lists: pending items filtered, ranged by date, sorted by time or confidence, paged with a total;
 * and search over the words of every item (queued, or kept for reporting a miss). A list read is a few sorted-set
 * range commands whatever the number of items; a search scans the account's search lines, whose number the per-account
 * caps bound (see docs/review.md, "At scale").
 */
export class Listing {
  constructor(
    private readonly ctx: StoreContext,
    private readonly near: NearGroups = new NearGroups(ctx),
  ) {}

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
    const [labels, campaigns, groups] = await Promise.all([this.#labels(k, ids), this.#campaigns(k, ids), this.#groups(k, ids)]);
    const entries: ListEntry[] = [];
    items.forEach(
      (item, i) =>
        item !== undefined &&
        entries.push({ item, label: labels[i], queued: true, campaign: campaigns[i] ?? 1, group: groups[i] ?? ALONE }),
    );
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
    const now = this.ctx.now();
    const from = q.from ?? -Infinity;
    const args = [
      Math.max(now - this.ctx.retentionMs, from),
      Math.max(now - this.ctx.keepFieldsMs, from),
      q.to ?? Number.MAX_SAFE_INTEGER,
      ...words.map((w) => ` ${w} `),
    ];
    // The account's search hash, scanned in short steps (search.lua): bounded by the caps on what it holds.
    const found = new Map<string, { id: string; at: number; kind: 'item' | 'kept' }>();
    let cursor = '0';
    do {
      const r = (await evalScript(redis, SCRIPTS.search, 1, k.search(), cursor, SEARCH_STEP, ...args)) as string[];
      cursor = r[0] ?? '0';
      for (let i = 1; i + 2 < r.length; i += 3) {
        const id = r[i] as string;
        found.set(id, { id, kind: r[i + 1] === 'k' ? 'kept' : 'item', at: Number(r[i + 2]) });
      }
    } while (cursor !== '0');
    const merged = [...found.values()].sort((a, b) => (oldest ? a.at - b.at : b.at - a.at) || a.id.localeCompare(b.id));
    const page = merged.slice(offset, offset + limit);
    const entries = await this.#entries(k, page);
    return { entries, total: merged.length - (page.length - entries.length) };
  }

  /** Each item's campaign size: one SCARD (and the count past the id cap) per item, pipelined. */
  async #campaigns(k: AccountKeys, ids: readonly string[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const p = this.ctx.redis.pipeline();
    for (const id of ids) p.scard(k.campaign(id)).get(k.campaignMore(id));
    const r = (await p.exec()) ?? [];
    return ids.map((_, i) => {
      const [errCard, card] = r[2 * i] ?? [null, 0];
      const [, more] = r[2 * i + 1] ?? [null, null];
      return errCard ? 1 : Number(card) + 1 + Number(more ?? 0);
    });
  }

  /** Each item's group of similar submissions: its size and the examples' items, two pipelines for the page. */
  async #groups(k: AccountKeys, ids: readonly string[]): Promise<ListEntry['group'][]> {
    const summaries = await this.near.summaries(k, ids);
    const exampleIds = summaries.flatMap((s) => s.exampleIds);
    const examples = new Map<string, ReviewJob>();
    if (exampleIds.length > 0)
      (await this.ctx.items(k, exampleIds)).forEach((item, i) => item !== undefined && examples.set(exampleIds[i] as string, item));
    return summaries.map((s) => ({
      size: s.size,
      examples: s.exampleIds.map((id) => examples.get(id)).filter((x): x is ReviewJob => x !== undefined),
    }));
  }

  /** Search hits as entries: a queued item (a reported miss is one by now), or the kept fields of one not queued. */
  async #entries(k: AccountKeys, page: { id: string; kind: 'item' | 'kept' }[]): Promise<ListEntry[]> {
    if (page.length === 0) return [];
    const ids = page.map((p) => p.id);
    const [items, kept, labels, campaigns, groups] = await Promise.all([
      this.ctx.items(k, ids),
      this.ctx.redis.hmget(k.kept(), ...ids),
      this.#labels(k, ids),
      this.#campaigns(k, ids),
      this.#groups(k, ids),
    ]);
    const out: ListEntry[] = [];
    page.forEach((_, i) => {
      const item = items[i];
      if (item !== undefined)
        return void out.push({ item, label: labels[i], queued: true, campaign: campaigns[i] ?? 1, group: groups[i] ?? ALONE });
      const raw = kept[i];
      const parsed = raw === null || raw === undefined ? undefined : reviewJobSchema.safeParse(parseJson(raw));
      if (parsed?.success) out.push({ item: parsed.data, label: undefined, queued: false, campaign: 1, group: ALONE });
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
