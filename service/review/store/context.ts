import type { RedisClient } from '../../config/redis-target.ts';
import { labelRecordSchema, type LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import { ReviewKeys, type AccountKeys } from './keys.ts';

export const DAY_MS = 86_400_000;
/** The default per-account caps on queued items: REVIEW_MAX_PENDING, REVIEW_MAX_LABELLED. */
export const DEFAULT_CAP = 10_000;
/**
 * The default caps on what is kept of submissions not queued (REVIEW_KEEP_FIELDS_MAX, REVIEW_LOOKUP_MAX): with the
 * pending cap, an account's footprint levels off within its first 40,000 submissions whenever 12.5-75% are queued.
 */
export const DEFAULT_KEEP_FIELDS_MAX = 5_000;
export const DEFAULT_LOOKUP_MAX = 5_000;
/** The default near-duplicate caps per account (REVIEW_NEAR_GROUPS_MAX, REVIEW_NEAR_MEMBERS_MAX): docs/operations.md. */
export const DEFAULT_NEAR_GROUPS_MAX = 1_000;
export const DEFAULT_NEAR_MEMBERS_MAX = 5_000;

export interface StoreOptions {
  readonly prefix: string;
  readonly retentionDays: number;
  /** How long the fields of a submission that was not queued are kept, so a miss can be labelled (0: not kept). */
  readonly keepFieldsDays?: number;
  /** Identical submissions to one account within this window become one item (a campaign); 0: never merged. */
  readonly campaignWindowMs?: number;
  /** Most pending items one account keeps; older low-value ones are evicted past it. 0: no cap. */
  readonly maxPending?: number;
  /** Most group leaders an account keeps in its near-duplicate band index (REVIEW_NEAR_GROUPS_MAX). */
  readonly nearGroupsMax?: number;
  /** Most grouped near-duplicates an account keeps out of its pending list (REVIEW_NEAR_MEMBERS_MAX). 0: never grouped. */
  readonly nearMembersMax?: number;
  /** Told how many items each ingest evicted (for the metric). */
  readonly onEvicted?: (count: number) => void;
  /** Told how many submissions each ingest shed at an account's full queue (for the metric). */
  readonly onShed?: (count: number) => void;
  /** Most submissions not queued whose fields an account keeps (the newest; REVIEW_KEEP_FIELDS_MAX). 0: none. */
  readonly keepFieldsMax?: number;
  /** An account's own keepFieldsMax (the tenants file's `review.keepFieldsMax`), when it sets one. */
  readonly keepFieldsMaxFor?: (accountId: string) => number | undefined;
  /** Most look-up verdicts of submissions not queued an account keeps (the newest; REVIEW_LOOKUP_MAX). 0: none. */
  readonly lookupMax?: number;
  /** Most labelled items an account keeps once their labels are exported (REVIEW_MAX_LABELLED). 0: no cap. */
  readonly maxLabelled?: number;
  /** Told when an account holds labelled items past maxLabelled whose labels are not exported yet (kept, never dropped). */
  readonly onLabelsOverCap?: (accountId: string, count: number) => void;
  readonly now?: () => number;
}

/** What every part of the review store shares: the connection, the key layout, retention, and reads of items. */
export class StoreContext {
  readonly keys: ReviewKeys;
  readonly retentionMs: number;
  readonly keepFieldsMs: number;
  readonly now: () => number;
  readonly campaignWindowMs: number;
  readonly maxPending: number;
  readonly nearGroupsMax: number;
  readonly nearMembersMax: number;
  readonly onEvicted: (count: number) => void;
  readonly onShed: (count: number) => void;
  readonly lookupMax: number;
  readonly maxLabelled: number;
  readonly onLabelsOverCap: (accountId: string, count: number) => void;
  readonly #keepFieldsMax: number;
  readonly #keepFieldsMaxFor: (accountId: string) => number | undefined;

  constructor(
    readonly redis: RedisClient,
    opts: StoreOptions,
  ) {
    this.campaignWindowMs = opts.campaignWindowMs ?? 0;
    this.maxPending = opts.maxPending ?? 0;
    this.nearGroupsMax = opts.nearGroupsMax ?? DEFAULT_NEAR_GROUPS_MAX;
    this.nearMembersMax = opts.nearMembersMax ?? DEFAULT_NEAR_MEMBERS_MAX;
    this.onEvicted = opts.onEvicted ?? (() => undefined);
    this.onShed = opts.onShed ?? (() => undefined);
    this.#keepFieldsMax = opts.keepFieldsMax ?? DEFAULT_KEEP_FIELDS_MAX;
    this.#keepFieldsMaxFor = opts.keepFieldsMaxFor ?? (() => undefined);
    this.lookupMax = opts.lookupMax ?? DEFAULT_LOOKUP_MAX;
    this.maxLabelled = opts.maxLabelled ?? DEFAULT_CAP;
    this.onLabelsOverCap = opts.onLabelsOverCap ?? (() => undefined);
    this.keys = new ReviewKeys(opts.prefix);
    this.retentionMs = Math.round(opts.retentionDays * DAY_MS);
    this.keepFieldsMs = Math.round(Math.min(opts.keepFieldsDays ?? 0, opts.retentionDays) * DAY_MS);
    this.now = opts.now ?? Date.now;
  }

  /** How many submissions not queued this account keeps the fields of (0 when the keep-fields window is off). */
  keepFieldsMax(accountId: string): number {
    return this.keepFieldsMs > 0 ? (this.#keepFieldsMaxFor(accountId) ?? this.#keepFieldsMax) : 0;
  }

  /** Items (and their labels) expire this long after the submission was received, reviewed or not. */
  expiresAt(receivedAt: string): number {
    return Date.parse(receivedAt) + this.retentionMs;
  }

  /** Every account that has had review items. */
  async accounts(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.accounts())).sort();
  }

  async forms(accountId: string): Promise<string[]> {
    return (await this.redis.smembers(this.keys.forAccount(accountId).forms())).sort();
  }

  async items(k: AccountKeys, ids: readonly string[]): Promise<(ReviewJob | undefined)[]> {
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(...ids.map((id) => k.item(id)));
    return raws.map((raw) => {
      if (raw === null) return undefined;
      const parsed = reviewJobSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    });
  }

  async label(accountId: string, submissionId: string): Promise<LabelRecord | undefined> {
    return parseLabel(await this.redis.get(this.keys.forAccount(accountId).label(submissionId)));
  }

  /**
   * Every index of an account whose members are submissionIds and whose scores are times (what the retention sweep
   * trims by score): pending (overall, by status, by form), labelled, unexported.
   */
  async indexes(accountId: string): Promise<string[]> {
    const k = this.keys.forAccount(accountId);
    const indexes = [k.pending(), k.pending({ status: 'spam' }), k.pending({ status: 'legitimate' }), k.labelled(), k.unexported()];
    for (const formId of await this.forms(accountId)) {
      indexes.push(k.pending({ formId }), k.pending({ formId, status: 'spam' }), k.pending({ formId, status: 'legitimate' }));
    }
    return indexes;
  }

  /** The pending indexes scored by confidence (not time): trimmed by member, never by score. */
  async confidenceIndexes(accountId: string): Promise<string[]> {
    const k = this.keys.forAccount(accountId);
    const indexes = [k.pendingByConfidence(), k.pendingByConfidence({ status: 'spam' }), k.pendingByConfidence({ status: 'legitimate' })];
    for (const formId of await this.forms(accountId)) {
      indexes.push(
        k.pendingByConfidence({ formId }),
        ...(['spam', 'legitimate'] as const).map((status) => k.pendingByConfidence({ formId, status })),
      );
    }
    return indexes;
  }
}

export function parseLabel(raw: string | null): LabelRecord | undefined {
  if (raw === null || raw === '') return undefined;
  const parsed = labelRecordSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : undefined;
}

export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
