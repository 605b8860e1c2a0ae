import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { parseJson, type StoreContext } from './context.ts';
import { evalScript, SCRIPTS } from './scripts.ts';
import { fingerprint } from './fingerprint.ts';
import { NearGroups } from './near-groups.ts';
import { searchLine } from './search-line.ts';
import { searchWords } from '../text/words.ts';
import { TurnBatch } from './turn-batch.ts';

/** Most submissionIds a campaign's set keeps; identical submissions past it are counted only. */
export const MAX_CAMPAIGN_IDS = 100;
const LISTED_FOR_MS = 60_000;
/**
 * Most pending items one ingest evicts past REVIEW_MAX_PENDING. One is enough at steady state (each ingest adds one);
 * more lets a cap lowered on a full account be reached within a few thousand ingests, while a call never holds Redis
 * longer than 8 evictions take (each ~30 commands).
 */
export const EVICT_PER_INGEST = 8;
/**
 * Most look-up verdicts and most kept fields one remember call drops: more than twice the most submissions a call adds
 * (REMEMBER_BATCH), so the caps hold; after a lowered cap or a quiet spell the sweep calls again until done.
 */
export const TRIM_PER_CALL = 1_000;
/**
 * Most submissions one remember call takes (TRIM_PER_CALL is more than twice this, so the caps hold). With one call
 * under way at a time the calls fill up under load, and Redis runs a call whole (a few commands per submission and as
 * many trims) ahead of the rate limiter's calls: a smaller bound than the 500 of per-turn calls keeps that wait short.
 */
export const REMEMBER_BATCH = 128;
/**
 * Most unqueued submissions waiting in memory to be remembered (each cut to REVIEW_MAX_FIELD_BYTES per field and
 * BODY_LIMIT in all, as a queued job): the look-up side's share of the process's bounded memory.
 */
export const REMEMBER_MAX_WAITING = 5_000;
/**
 * Most queued submissions one ingest-batch.lua call carries: each is a grouping step and an ingest (tens of commands,
 * a few hundred with evictions), so a call holds Redis for about a millisecond, not longer, ahead of the rate
 * limiter's call a verify request waits on.
 */
export const INGEST_BATCH = 32;

/**
 * How long an account's state from the last ingest reply (at its caps, and the bar) decides in process: short, so a
 * queue that moderators drain, or whose caps were raised, takes spam verdicts again within seconds.
 */
export const AT_CAPS_FOR_MS = 2_000;

/** 'shed': not stored, because the account's queue was full and it would have been the first evicted (kept for look-up). */
export type IngestResult = 'stored' | 'merged' | 'grouped' | 'duplicate' | 'expired' | 'shed';

/** A submission the review store may shed at an account's full queue: queued only because its verdict is spam. */
export function sheddable(job: ReviewJob): boolean {
  return job.queued?.reason === 'spam' && job.verdict.status === 'spam';
}

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
  /** Spam verdicts not stored because the queue was full and the model was surer of them than of every pending one. */
  readonly shed: number;
}

/** Intake and reads: items arrive from the queue, the console lists and looks them up. */
export class ItemStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly near: NearGroups = new NearGroups(ctx),
  ) {}

  /**
   * Stores a queued submission: 'grouped' with a similar pending item (near-groups.ts: an item of its own, listed as
   * that item's group), else 'merged' into an identical pending item's campaign, else 'stored' as an item and row.
   */
  async ingest(job: ReviewJob): Promise<IngestResult> {
    const [result] = await this.ingestMany([job]);
    // Shed at a full queue (a spool replay through the worker): kept for look-up like an unqueued submission.
    if (result === 'shed') await this.remember(job);
    return result as IngestResult;
  }

  /**
   * Each account's state from its last ingest reply, while fresh (AT_CAPS_FOR_MS): at its caps, with the bar (the
   * surest pending spam verdict's confidence; -Infinity with none pending). Only accounts at their caps are here.
   */
  readonly #atCaps = new Map<string, { bar: number; until: number }>();
  /**
   * Accounts whose grouped near-duplicates were at REVIEW_NEAR_MEMBERS_MAX, until when: past that cap no submission is
   * grouped (members leave only at retention), so the grouping step (near print and near-ingest.lua, ~100 µs of CPU a
   * submission) is left out. Only an answer to a call that ran the step renews it, so one call every AT_CAPS_FOR_MS
   * still runs it and its housekeeping (members past retention leave, and grouping comes back once under the cap).
   */
  readonly #membersFull = new Map<string, number>();

  /** Whether this submission is shed without a call: its account is at its caps and it is at least as sure as the bar. */
  #shedHere(job: ReviewJob, now: number): boolean {
    if (!sheddable(job)) return false;
    const state = this.#atCaps.get(job.accountId);
    if (state === undefined) return false;
    if (state.until <= now) {
      this.#atCaps.delete(job.accountId);
      return false;
    }
    return job.verdict.confidence >= state.bar;
  }

  /**
   * Stores a batch of queued submissions as ingest does each: one script call per account in the batch
   * (ingest-batch.lua: near-ingest.lua then ingest.lua per submission), at most INGEST_BATCH submissions per call.
   * Rejects when any call fails; the submissions of a call that failed may be partly stored, and storing one again is a
   * no-op (its item key is set once for the whole retention), so the caller may retry the whole batch.
   */
  async ingestMany(jobs: readonly ReviewJob[]): Promise<IngestResult[]> {
    const results = new Array<IngestResult>(jobs.length);
    const byAccount = new Map<string, number[]>();
    const shedBy = new Map<string, number>();
    const now = this.ctx.now();
    jobs.forEach((job, i) => {
      // At a full queue a sure spam verdict would only displace one the model was as sure of: decided here, no script.
      if (this.#shedHere(job, now)) {
        results[i] = 'shed';
        shedBy.set(job.accountId, (shedBy.get(job.accountId) ?? 0) + 1);
        return;
      }
      const list = byAccount.get(job.accountId);
      if (list === undefined) byAccount.set(job.accountId, [i]);
      else list.push(i);
    });
    const calls: Promise<unknown>[] = [];
    if (byAccount.size > 0) calls.push(this.ctx.redis.sadd(this.ctx.keys.accounts(), ...byAccount.keys()));
    for (const indexes of byAccount.values()) {
      for (let from = 0; from < indexes.length; from += INGEST_BATCH) {
        const part = indexes.slice(from, from + INGEST_BATCH);
        calls.push(
          this.#ingestCall(part.map((i) => jobs[i] as ReviewJob)).then((codes) =>
            part.forEach((i, j) => (results[i] = codes[j] as IngestResult)),
          ),
        );
      }
    }
    await Promise.all(calls);
    // The console's count of shed submissions, one INCRBY per account and batch, sent only once the batch's scripts are
    // in: a batch that fails is spooled whole and replayed, and its sheds are counted then, once.
    await Promise.all([...shedBy].map(([accountId, n]) => this.ctx.redis.incrby(this.ctx.keys.forAccount(accountId).shed(), n)));
    const shed = [...shedBy.values()].reduce((a, n) => a + n, 0);
    if (shed > 0) this.ctx.onShed(shed);
    return results;
  }

  /** One ingest-batch.lua call for submissions of one account. */
  async #ingestCall(jobs: readonly ReviewJob[]): Promise<IngestResult[]> {
    const keys = new Map<string, number>();
    // KEYS[i] for a key, each key sent once: the account's indexes are the same for every submission of the batch.
    const at = (key: string) => {
      let i = keys.get(key);
      if (i === undefined) keys.set(key, (i = keys.size + 1));
      return i;
    };
    const first = jobs[0] as ReviewJob;
    const accountId = first.accountId;
    const base = this.ctx.keys.forAccount(accountId).base;
    const args: Array<string | number> = [base, this.ctx.maxPending, this.#membersCap()];
    const now = this.ctx.now();
    const groupingOff = (this.#membersFull.get(accountId) ?? -Infinity) > now;
    let grouped = false;
    for (const job of jobs) {
      const k = this.ctx.keys.forAccount(job.accountId);
      const receivedAt = Date.parse(job.receivedAt);
      const print = fingerprint(job);
      const words = searchWords(job.fields);
      const line = searchLine('i', receivedAt, words, print);
      const near = groupingOff ? undefined : this.near.plan(job, { receivedAt, words, exact: print, line });
      grouped ||= near !== undefined;
      const ingestKeys = [
        k.item(job.submissionId),
        ...k.pendingAll(job.formId, job.verdict.status),
        k.forms(),
        k.fingerprint(print),
        ...k.pendingConfidenceAll(job.formId, job.verdict.status),
        k.search(),
      ];
      args.push(
        near === undefined ? '' : near.keys.map(at).join(' '),
        ingestKeys.map(at).join(' '),
        JSON.stringify(job),
        sheddable(job) ? job.verdict.confidence : '',
        near === undefined ? 0 : near.args.length,
        ...(near?.args ?? []),
        receivedAt,
        this.ctx.expiresAt(job.receivedAt),
        job.submissionId,
        job.formId,
        now,
        this.ctx.campaignWindowMs,
        k.base,
        job.verdict.confidence,
        line,
        this.ctx.maxPending,
        MAX_CAMPAIGN_IDS,
        EVICT_PER_INGEST,
      );
    }
    const codes = (await evalScript(this.ctx.redis, SCRIPTS.ingestBatch, keys.size, ...keys.keys(), ...args)) as Array<number | string>;
    const results: IngestResult[] = [];
    let evicted = 0;
    let shed = 0;
    for (let i = 0; i < jobs.length; i++) {
      const [near, code, gone] = [codes[3 * i], codes[3 * i + 1], Number(codes[3 * i + 2] ?? 0)];
      evicted += gone;
      if (near === -3) shed++;
      results.push(
        near === -3
          ? 'shed'
          : near === 1
            ? 'grouped'
            : near === 2
              ? 'duplicate'
              : code === 1
                ? 'stored'
                : code === 2
                  ? 'merged'
                  : code === 0
                    ? 'duplicate'
                    : 'expired',
      );
    }
    if (evicted > 0) this.ctx.onEvicted(evicted);
    if (shed > 0) this.ctx.onShed(shed);
    // The reply's last two: whether the account is at its caps now, and its bar ('' with no spam verdict pending).
    const [full, bar, membersFull] = [codes[3 * jobs.length], codes[3 * jobs.length + 1], codes[3 * jobs.length + 2]];
    if (membersFull !== 1) this.#membersFull.delete(accountId);
    else if (grouped) this.#membersFull.set(accountId, this.ctx.now() + AT_CAPS_FOR_MS);
    if (full === 1) this.#atCaps.set(accountId, { bar: bar === '' ? -Infinity : Number(bar), until: this.ctx.now() + AT_CAPS_FOR_MS });
    else this.#atCaps.delete(accountId);
    return results;
  }

  /** The grouped-member cap as the scripts read it: 0 when nothing is grouped (no campaign window or no member cap). */
  #membersCap(): number {
    return this.ctx.campaignWindowMs > 0 ? this.ctx.nearMembersMax : 0;
  }

  /** The submissions merged into this item (itself first), or a campaign of one; `count` includes those past the id cap. */
  async campaign(accountId: string, submissionId: string): Promise<Campaign> {
    const k = this.ctx.keys.forAccount(accountId);
    const [members, more] = await Promise.all([
      this.ctx.redis.smembers(k.campaign(submissionId)),
      this.ctx.redis.get(k.campaignMore(submissionId)),
    ]);
    const others = members.sort();
    return { count: others.length + 1 + Number(more ?? 0), submissionIds: [submissionId, ...others] };
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
    const [pending, labelled, shed] = await Promise.all([
      this.ctx.redis.zcard(k.pending(filter)),
      this.ctx.redis.zcard(k.labelled()),
      this.ctx.redis.get(k.shed()),
    ]);
    return { pending, labelled, shed: Number(shed ?? 0) };
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
   * with the fields kept for it (the newest REVIEW_KEEP_FIELDS_MAX within REVIEW_KEEP_FIELDS_DAYS), so a miss can be
   * labelled; else by its verdict only (the newest REVIEW_LOOKUP_MAX within retention).
   */
  async get(accountId: string, submissionId: string): Promise<ReviewEntry | undefined> {
    const k = this.ctx.keys.forAccount(accountId);
    const [item] = await this.ctx.items(k, [submissionId]);
    if (item !== undefined) return { item, label: await this.ctx.label(accountId, submissionId), queued: true, fieldsKept: true };
    const [kept, seen] = await Promise.all([this.ctx.redis.hget(k.kept(), submissionId), this.ctx.redis.hget(k.seen(), submissionId)]);
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
   * Keeps the verdict of a submission that was not queued (no fields: nothing personal) for look-ups, and its fields
   * (cut by the sink like a queued item's), findable by search, within the keep-fields window, so a moderator can label
   * a miss; each bounded per account by count and by age (remember.lua). Submissions remembered in one event-loop turn
   * go to Redis together: one script call per account.
   */
  remember(job: ReviewJob): Promise<void> {
    return this.#batch.add(job);
  }

  /** Unqueued submissions in memory whose look-up write has not ended yet. */
  get rememberWaiting(): number {
    return this.#batch.waiting;
  }

  /** Trims an account's look-up verdicts and kept fields to their bounds (the retention sweep; remember does it too). */
  async trimRemembered(accountId: string): Promise<void> {
    // Each call drops at most TRIM_PER_CALL of each: called again until a call drops less.
    for (;;) {
      const [seen, kept] = await this.#writeRemembered(accountId, []);
      if (seen < TRIM_PER_CALL && kept < TRIM_PER_CALL) return;
    }
  }

  /** When this process last listed each account (an erasure of the account may unlist it: listed again within a minute). */
  readonly #listed = new Map<string, number>();
  // One call at a time, the jobs of the turns it took gathered for the next (group commit); past REMEMBER_MAX_WAITING
  // waiting, a verdict is not kept (the sink counts it as a skipped look-up write): memory stays bounded when Redis is slow.
  readonly #batch = new TurnBatch<ReviewJob>((jobs) => this.#flushRemembered(jobs), {
    maxBatch: REMEMBER_BATCH,
    maxFlushing: 1,
    maxWaiting: REMEMBER_MAX_WAITING,
  });

  async #flushRemembered(jobs: readonly ReviewJob[]): Promise<void> {
    const byAccount = new Map<string, ReviewJob[]>();
    for (const job of jobs) {
      const list = byAccount.get(job.accountId);
      if (list === undefined) byAccount.set(job.accountId, [job]);
      else list.push(job);
    }
    await Promise.all(
      [...byAccount].map(async ([accountId, list]) => {
        await this.#writeRemembered(accountId, list);
      }),
    );
  }

  /** Returns how many look-up verdicts and kept fields the call dropped. */
  async #writeRemembered(accountId: string, jobs: readonly ReviewJob[]): Promise<[number, number]> {
    const k = this.ctx.keys.forAccount(accountId);
    const now = this.ctx.now();
    const keepMax = this.ctx.keepFieldsMax(accountId);
    const args: (string | number)[] = [];
    for (const job of jobs) {
      const receivedAt = Date.parse(job.receivedAt);
      const { cutFields: _, ...verdict } = job;
      const seen: ReviewJob = { ...verdict, fields: {}, truncated: false, origin: job.origin };
      const keep = keepMax > 0 && receivedAt + this.ctx.keepFieldsMs > now;
      args.push(
        job.submissionId,
        receivedAt,
        JSON.stringify(seen),
        keep ? JSON.stringify(job) : '',
        keep ? searchLine('k', receivedAt, searchWords(job.fields)) : '',
      );
    }
    // Listed among the accounts, so the sweep and an erasure reach an account whose submissions were never queued.
    if (jobs.length > 0 && (this.#listed.get(accountId) ?? -Infinity) < now - LISTED_FOR_MS) {
      await this.ctx.redis.sadd(this.ctx.keys.accounts(), accountId);
      this.#listed.set(accountId, now);
    }
    return (await evalScript(
      this.ctx.redis,
      SCRIPTS.remember,
      5,
      k.seen(),
      k.seenAt(),
      k.kept(),
      k.keptAt(),
      k.search(),
      now,
      this.ctx.retentionMs,
      this.ctx.lookupMax,
      this.ctx.keepFieldsMs,
      keepMax,
      TRIM_PER_CALL,
      ...args,
    )) as [number, number];
  }
}
