import type { Cluster, Redis } from 'ioredis';

/** A single Redis server or a Redis Cluster. */
type RedisClient = Redis | Cluster;
import { z } from 'zod';
import { labelSchema } from '../labels/records.ts';

/** SHADOW_PREFIX's default: where the service counts what the shadow did, and `models shadow-report` reads it. */
export const DEFAULT_SHADOW_PREFIX = 'formguard:shadow';
/** How long a reviewed submission's pair of verdicts is kept for shadow-report to match with a moderator's label. */
export const PAIR_RETENTION_SECONDS = 30 * 24 * 3600;

const scoreSchema = z.object({ version: z.string(), status: labelSchema, spamProbability: z.number().min(0).max(1) });

/** Why the review policy queued a submission, and the chance it had of being queued (the sample rate for `sample`, else 1). */
export const queuedSchema = z.object({
  reason: z.enum(['disagreement', 'spam', 'low-confidence', 'sample']),
  probability: z.number().gt(0).max(1),
});
export type Queued = z.infer<typeof queuedSchema>;

/** One submission scored by both models: what shadow-report matches with moderators' labels. */
export const shadowPairSchema = z.object({
  submissionId: z.string().uuid(),
  accountId: z.string().min(1),
  formId: z.string().min(1),
  receivedAt: z.string().datetime(),
  active: scoreSchema,
  shadow: scoreSchema,
  /** Why it went to review: shadow-report weights its label by 1 / probability. Absent in pairs stored before it was kept. */
  queued: queuedSchema.optional(),
});
export type ShadowPair = z.infer<typeof shadowPairSchema>;

/**
 * Redis layout. A run is one (active, shadow) pairing: counts of two different pairings never mix. Per run, the
 * accounts seen, and per account a hash of counts by form and verdict pair with the sums of both spam probabilities.
 */
export class ShadowKeys {
  readonly #base: string;

  // One hash tag for every key: a Cluster keeps them in one slot, so the service's one pipeline and the report's MGET
  // work there as on one server (the shadow's counts are small: a sample, one hash per account).
  constructor(readonly prefix: string) {
    this.#base = `{${prefix}}`;
  }

  /** Members `<active> <shadow>`. */
  runs(): string {
    return `${this.#base}:runs`;
  }

  accounts(active: string, shadow: string): string {
    return `${this.#base}:run:${active}:${shadow}:accounts`;
  }

  counts(active: string, shadow: string, accountId: string): string {
    return `${this.#base}:run:${active}:${shadow}:${accountId}:counts`;
  }

  pair(submissionId: string): string {
    return `${this.#base}:pair:${submissionId}`;
  }
}

/** A hash field of the counts: form, then what it counts (`spam>legitimate`: active said spam, shadow legitimate). */
export function countField(formId: string, what: string): string {
  return `${encodeURIComponent(formId)}|${what}`;
}

/**
 * Counts one pair, and keeps the pair itself when `keep` (the submission went to review, so a label may name it: the
 * rest could never be matched, and at a busy site would fill Redis). One pipeline: the service's cost is one write.
 */
export async function recordPair(redis: RedisClient, keys: ShadowKeys, pair: ShadowPair, keep: boolean): Promise<void> {
  const { active, shadow, accountId, formId } = pair;
  const counts = keys.counts(active.version, shadow.version, accountId);
  const pipeline = redis.pipeline();
  if (keep) pipeline.set(keys.pair(pair.submissionId), JSON.stringify(pair), 'EX', PAIR_RETENTION_SECONDS);
  const results = await pipeline
    .sadd(keys.runs(), `${active.version} ${shadow.version}`)
    .sadd(keys.accounts(active.version, shadow.version), accountId)
    .hincrby(counts, countField(formId, `${active.status}>${shadow.status}`), 1)
    .hincrbyfloat(counts, countField(formId, 'pActive'), active.spamProbability)
    .hincrbyfloat(counts, countField(formId, 'pShadow'), shadow.spamProbability)
    .exec();
  const failed = results?.find(([err]) => err !== null);
  if (failed) throw failed[0];
}

/** What one account's form saw of one run. */
export interface FormCounts {
  readonly formId: string;
  /** By verdict pair, `active>shadow`. */
  readonly pairs: Record<string, number>;
  readonly scored: number;
  readonly agreed: number;
  readonly meanActive: number;
  readonly meanShadow: number;
}

export async function readRuns(redis: RedisClient, keys: ShadowKeys): Promise<Array<{ active: string; shadow: string }>> {
  const members = (await redis.smembers(keys.runs())).sort();
  return members.map((m) => {
    const [active = '', shadow = ''] = m.split(' ');
    return { active, shadow };
  });
}

export async function readAccounts(redis: RedisClient, keys: ShadowKeys, active: string, shadow: string): Promise<string[]> {
  return (await redis.smembers(keys.accounts(active, shadow))).sort();
}

export async function readFormCounts(
  redis: RedisClient,
  keys: ShadowKeys,
  active: string,
  shadow: string,
  accountId: string,
): Promise<FormCounts[]> {
  const hash = await redis.hgetall(keys.counts(active, shadow, accountId));
  const byForm = new Map<string, { pairs: Record<string, number>; pActive: number; pShadow: number }>();
  for (const [field, value] of Object.entries(hash)) {
    const bar = field.lastIndexOf('|');
    const formId = decodeURIComponent(field.slice(0, bar));
    const what = field.slice(bar + 1);
    const entry = byForm.get(formId) ?? { pairs: {}, pActive: 0, pShadow: 0 };
    byForm.set(formId, entry);
    if (what === 'pActive') entry.pActive = Number(value);
    else if (what === 'pShadow') entry.pShadow = Number(value);
    else entry.pairs[what] = Number(value);
  }
  return [...byForm]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([formId, e]) => {
      const scored = Object.values(e.pairs).reduce((a, b) => a + b, 0);
      const agreed = (e.pairs['spam>spam'] ?? 0) + (e.pairs['legitimate>legitimate'] ?? 0);
      return {
        formId,
        pairs: e.pairs,
        scored,
        agreed,
        meanActive: scored ? e.pActive / scored : 0,
        meanShadow: scored ? e.pShadow / scored : 0,
      };
    });
}

/** The stored pairs of these submissions (absent when never shadowed or past retention). */
export async function readPairs(redis: RedisClient, keys: ShadowKeys, submissionIds: readonly string[]): Promise<Map<string, ShadowPair>> {
  const out = new Map<string, ShadowPair>();
  for (let i = 0; i < submissionIds.length; i += 500) {
    const ids = submissionIds.slice(i, i + 500);
    const values = ids.length ? await redis.mget(ids.map((id) => keys.pair(id))) : [];
    values.forEach((v, j) => {
      if (v === null) return;
      const parsed = shadowPairSchema.safeParse(JSON.parse(v));
      if (parsed.success) out.set(ids[j] as string, parsed.data);
    });
  }
  return out;
}
