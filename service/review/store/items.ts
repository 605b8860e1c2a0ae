import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { parseJson, type StoreContext } from './context.ts';
import { evalScript, SCRIPTS } from './scripts.ts';
import { searchWords, wordHash } from '../text/words.ts';
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
  /** False for a submission that was not queued: a miss to report, or only its verdict for support look-ups. */
  readonly queued: boolean;
  /** Whether the fields are there: always for a queued item; for another, only within the keep-fields window. */
  readonly fieldsKept: boolean;
}

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
    const words = searchWords(job.fields).map((w) => k.word(wordHash(w)));
    const r = await evalScript(
      redis,
      SCRIPTS.ingest,
      11 + words.length,
      k.item(job.submissionId),
      ...k.pendingAll(job.formId, job.verdict.status),
      k.forms(),
      k.fingerprint(fingerprint(job)),
      ...k.pendingConfidenceAll(job.formId, job.verdict.status),
      ...words,
      JSON.stringify(job),
      Date.parse(job.receivedAt),
      this.ctx.expiresAt(job.receivedAt),
      job.submissionId,
      job.formId,
      this.ctx.now(),
      this.ctx.campaignWindowMs,
      k.base,
      job.verdict.confidence,
    );
    if (r === 1 && this.ctx.maxPending > 0) {
      const evicted = Number(
        await evalScript(
          redis,
          SCRIPTS.evict,
          3,
          k.pending(),
          k.pending({ status: 'spam' }),
          k.pending({ status: 'legitimate' }),
          this.ctx.maxPending,
          k.base,
        ),
      );
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

  /**
   * Any submission of this account within retention: a queued one with its fields and label; one that was not queued
   * with the fields kept for it (within REVIEW_KEEP_FIELDS_DAYS), so a miss can be labelled; else by its verdict only.
   */
  async get(accountId: string, submissionId: string): Promise<ReviewEntry | undefined> {
    const k = this.ctx.keys.forAccount(accountId);
    const [item] = await this.ctx.items(k, [submissionId]);
    if (item !== undefined) return { item, label: await this.ctx.label(accountId, submissionId), queued: true, fieldsKept: true };
    const [kept, seen] = await this.ctx.redis.mget(k.kept(submissionId), k.seen(submissionId));
    for (const [raw, fieldsKept] of [
      [kept, true],
      [seen, false],
    ] as const) {
      if (raw === null || raw === undefined) continue;
      const parsed = reviewJobSchema.safeParse(parseJson(raw));
      if (parsed.success) return { item: parsed.data, label: undefined, queued: false, fieldsKept };
    }
    return undefined;
  }

  /**
   * Keeps the verdict of a submission that was not queued for the whole retention (no fields: nothing personal), and
   * its size-capped fields, findable by search, for the keep-fields window, so a moderator can label a miss.
   */
  async remember(job: ReviewJob): Promise<void> {
    const k = this.ctx.keys.forAccount(job.accountId);
    const receivedAt = Date.parse(job.receivedAt);
    const now = this.ctx.now();
    const { cutFields: _, ...verdict } = job;
    const seen: ReviewJob = { ...verdict, fields: {}, truncated: false, origin: job.origin };
    const keepUntil = receivedAt + this.ctx.keepFieldsMs;
    const words = this.ctx.keepFieldsMs > 0 && keepUntil > now ? searchWords(job.fields).map((w) => k.word(wordHash(w), 'kept')) : [];
    await evalScript(
      this.ctx.redis,
      SCRIPTS.remember,
      2 + words.length,
      k.seen(job.submissionId),
      k.kept(job.submissionId),
      ...words,
      JSON.stringify(seen),
      this.ctx.expiresAt(job.receivedAt),
      words.length > 0 ? JSON.stringify(job) : '',
      keepUntil,
      receivedAt,
      now - this.ctx.keepFieldsMs,
      job.submissionId,
      now,
    );
  }
}
