import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../../config/redis-target.ts';
import type { Logger } from 'pino';
import type { ReviewKeys } from '../store/keys.ts';

/**
 * What the dashboard counts of verify traffic, per account, form and UTC day. `block-list` and `allow-list` count the
 * spam and legitimate verdicts an account's list decided (they are counted under spam and legitimate too).
 */
export const TRAFFIC_EVENTS = ['spam', 'legitimate', 'blocked', 'rate-limited', 'block-list', 'allow-list'] as const;
export type TrafficEvent = (typeof TRAFFIC_EVENTS)[number];

/** What the verify route calls: a counter in memory, nothing on the response path waits for Redis. */
export interface TrafficRecorder {
  record(accountId: string, formId: string, event: TrafficEvent): void;
}

const DAY_MS = 86_400_000;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Counts verify outcomes in memory and adds them to Redis once a second in one pipeline (HINCRBY per account, form
 * and day, each day's hash expiring REVIEW_RETENTION_DAYS after the day ends). No personal data: ids and counts.
 * A crash loses at most the last second's counts; while Redis is down they are kept and sent when it answers.
 */
export class TrafficCounter implements TrafficRecorder {
  readonly #pending = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReviewKeys,
    private readonly retentionMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    intervalMs = 1_000,
  ) {
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  record(accountId: string, formId: string, event: TrafficEvent): void {
    // Space-separated: account and form ids cannot hold one (tenants schema).
    const key = `${utcDay(this.now())} ${accountId} ${formId} ${event}`;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
  }

  /** Sends what was counted since the last flush; concurrent calls share one. */
  flush(): Promise<void> {
    if (this.#flushing !== undefined) return this.#flushing;
    if (this.#pending.size === 0 || this.redis.status !== 'ready') return Promise.resolve();
    const batch = new Map(this.#pending);
    this.#pending.clear();
    // One pipeline; on a Cluster one per account, whose keys share a hash tag (a pipeline must stay on one node).
    const pipelines = new Map<string, ChainableCommander>();
    const pipelineOf = (accountId: string): ChainableCommander => {
      const id = this.redis.isCluster ? accountId : '';
      const existing = pipelines.get(id);
      if (existing !== undefined) return existing;
      const created = this.redis.pipeline();
      pipelines.set(id, created);
      return created;
    };
    const expiring = new Set<string>();
    for (const [key, n] of batch) {
      const [day, accountId, formId, event] = key.split(' ') as [string, string, string, string];
      const hash = this.keys.forAccount(accountId).traffic(day);
      const p = pipelineOf(accountId);
      p.hincrby(hash, `${formId} ${event}`, n);
      if (!expiring.has(hash)) {
        expiring.add(hash);
        p.pexpireat(hash, Date.parse(`${day}T00:00:00Z`) + DAY_MS + this.retentionMs);
      }
    }
    this.#flushing = Promise.all([...pipelines.values()].map((p) => p.exec()))
      .then(
        (all) => {
          if (all.some((results) => results?.some(([err]) => err !== null))) throw new Error('a traffic count was refused');
        },
        (err: unknown) => {
          throw err;
        },
      )
      .catch((err: unknown) => {
        // Counted again at the next flush: an outage loses no counts while this process lives.
        for (const [key, n] of batch) this.#pending.set(key, (this.#pending.get(key) ?? 0) + n);
        this.log.debug({ err }, 'review: traffic counts not sent yet');
      })
      .finally(() => {
        this.#flushing = undefined;
      });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#flushing;
    await this.flush();
  }
}

export type DayTraffic = { readonly day: string } & Record<TrafficEvent, number>;

/** The counts of an account's days (oldest first), each form's and all forms' together. */
export async function readTraffic(
  redis: RedisClient,
  keys: ReviewKeys,
  accountId: string,
  days: readonly string[],
): Promise<{ byDay: DayTraffic[]; byForm: Map<string, Record<TrafficEvent, number>>; dayOfForm: (formId: string) => DayTraffic[] }> {
  const k = keys.forAccount(accountId);
  const p = redis.pipeline();
  for (const day of days) p.hgetall(k.traffic(day));
  const results = (await p.exec()) ?? [];
  const byForm = new Map<string, Record<TrafficEvent, number>>();
  const perDay: Map<string, Record<TrafficEvent, number>>[] = [];
  const byDay = days.map((day, i) => {
    const forms = new Map<string, Record<TrafficEvent, number>>();
    perDay.push(forms);
    const [err, raw] = results[i] ?? [null, {}];
    if (err) throw err;
    const total = zero();
    for (const [field, value] of Object.entries((raw ?? {}) as Record<string, string>)) {
      const space = field.lastIndexOf(' ');
      const formId = field.slice(0, space);
      const event = field.slice(space + 1) as TrafficEvent;
      if (!TRAFFIC_EVENTS.includes(event)) continue;
      const n = Number(value);
      total[event] += n;
      const f = byForm.get(formId) ?? zero();
      f[event] += n;
      byForm.set(formId, f);
      const d = forms.get(formId) ?? zero();
      d[event] += n;
      forms.set(formId, d);
    }
    return { day, ...total };
  });
  return { byDay, byForm, dayOfForm: (formId) => days.map((day, i) => ({ day, ...(perDay[i]?.get(formId) ?? zero()) })) };
}

export function zero(): Record<TrafficEvent, number> {
  return { spam: 0, legitimate: 0, blocked: 0, 'rate-limited': 0, 'block-list': 0, 'allow-list': 0 };
}
