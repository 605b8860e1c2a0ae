import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { DAY_MS, type StoreContext } from './context.ts';
import { SCRIPTS } from './scripts.ts';
import { fingerprint } from './fingerprint.ts';

export type IngestResult = 'stored' | 'merged' | 'duplicate' | 'expired';

/** A campaign: the submissions merged into one item, its own included. */
export interface Campaign {
  readonly count: number;
  readonly submissionIds: readonly string[];
}

export interface ListFilter {
  readonly formId?: string | undefined;
  readonly status?: Label | undefined;
}

export interface ReviewEntry {
  readonly item: ReviewJob;
  readonly label: LabelRecord | undefined;
  /** False for a submission that was not queued: only its verdict is kept (no fields), for support look-ups. */
  readonly queued: boolean;
}

/** How long the verdict of an unqueued submission stays available to look-ups (capped by retention). */
export const LOOKUP_DAYS = 7;

export interface ReviewCounts {
  readonly pending: number;
  readonly labelled: number;
}

/** Intake and reads: items arrive from the queue, the console lists and looks them up. */
export class ItemStore {
  constructor(private readonly ctx: StoreContext) {}

  async ingest(job: ReviewJob): Promise<IngestResult> {
    const { redis, keys } = this.ctx;
    const k = keys.forAccount(job.accountId);
    await redis.sadd(keys.accounts(), job.accountId);
    const r = await redis.eval(
      SCRIPTS.ingest,
      7,
      k.item(job.submissionId),
      ...k.pendingAll(job.formId, job.verdict.status),
      k.forms(),
      k.fingerprint(fingerprint(job)),
      JSON.stringify(job),
      Date.parse(job.receivedAt),
      this.ctx.expiresAt(job.receivedAt),
      job.submissionId,
      job.formId,
      this.ctx.now(),
      this.ctx.campaignWindowMs,
      k.base,
    );
    if (r === 1 && this.ctx.maxPending > 0) {
      const evicted = Number(await redis.eval(SCRIPTS.evict, 3, k.pending(), k.pending({ status: 'spam' }), k.pending({ status: 'legitimate' }), this.ctx.maxPending, k.base));
      if (evicted > 0) this.ctx.onEvicted(evicted);
    }
    return r === 1 ? 'stored' : r === 2 ? 'merged' : r === 0 ? 'duplicate' : 'expired';
  }

  /** The submissions merged into this item (itself first), or a campaign of one. */
  async campaign(accountId: string, submissionId: string): Promise<Campaign> {
    const others = (await this.ctx.redis.smembers(this.ctx.keys.forAccount(accountId).campaign(submissionId))).sort();
    return { count: others.length + 1, submissionIds: [submissionId, ...others] };
  }

  /** Pending items, oldest first. */
  async listPending(accountId: string, filter: ListFilter = {}, offset = 0, limit = 50): Promise<ReviewJob[]> {
    const k = this.ctx.keys.forAccount(accountId);
    const index = k.pending(filter);
    const ids = await this.ctx.redis.zrange(index, String(offset), String(offset + limit - 1));
    const items = await this.ctx.items(k, ids);
    const gone = ids.filter((_, i) => items[i] === undefined);
    if (gone.length > 0) await this.ctx.redis.zrem(index, ...gone);
    return items.filter((x): x is ReviewJob => x !== undefined);
  }

  async counts(accountId: string, filter: ListFilter = {}): Promise<ReviewCounts> {
    const k = this.ctx.keys.forAccount(accountId);
    const [pending, labelled] = await Promise.all([this.ctx.redis.zcard(k.pending(filter)), this.ctx.redis.zcard(k.labelled())]);
    return { pending, labelled };
  }

  forms(accountId: string): Promise<string[]> {
    return this.ctx.forms(accountId);
  }

  /** Every account that has had review items. */
  accounts(): Promise<string[]> {
    return this.ctx.accounts();
  }

  /** Any recent submission of this account: queued ones with fields and label, others by their verdict only. */
  async get(accountId: string, submissionId: string): Promise<ReviewEntry | undefined> {
    const k = this.ctx.keys.forAccount(accountId);
    const [item] = await this.ctx.items(k, [submissionId]);
    if (item !== undefined) return { item, label: await this.ctx.label(accountId, submissionId), queued: true };
    const raw = await this.ctx.redis.get(k.seen(submissionId));
    if (raw === null) return undefined;
    const parsed = reviewJobSchema.safeParse(JSON.parse(raw));
    return parsed.success ? { item: parsed.data, label: undefined, queued: false } : undefined;
  }

  /** Keeps the verdict of a submission that was not queued (fields dropped: nothing personal is kept for it). */
  async remember(job: ReviewJob): Promise<void> {
    const ttl = Math.min(this.ctx.retentionMs, LOOKUP_DAYS * DAY_MS);
    const expireAt = Date.parse(job.receivedAt) + ttl;
    if (expireAt <= this.ctx.now()) return;
    const { cutFields: _, ...verdict } = job;
    const seen: ReviewJob = { ...verdict, fields: {}, truncated: false, origin: job.origin };
    await this.ctx.redis.set(this.ctx.keys.forAccount(job.accountId).seen(job.submissionId), JSON.stringify(seen), 'PXAT', expireAt, 'NX');
  }
}
