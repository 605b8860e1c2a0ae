import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../config/redis-target.ts';

/** How often an instance says it is live, and how long without a word it is taken as gone. */
const BEAT_MS = 5_000;
const GONE_MS = 15_000;

/**
 * Keeps count of the service instances (processes: each worker is one) that share the rate limits: each writes its
 * id with the time into one sorted set every 5 s, and reads how many wrote within the last 15 s. While Redis cannot
 * say (down, or refusing the write), the last count it gave stands: an instance that cannot count in Redis allows
 * only its share of a limit, and that share must not grow because the other instances went quiet with it.
 */
export class InstanceHeartbeat {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #id = randomUUID();
  readonly #timer: NodeJS.Timeout;
  readonly #now: () => number;
  #live = 1;

  constructor(redis: RedisClient, prefix: string, options: { now?: () => number; beatMs?: number } = {}) {
    this.#redis = redis;
    this.#key = `${prefix}:instances`;
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => void this.beat(), options.beatMs ?? BEAT_MS).unref();
    if (redis.status === 'ready') void this.beat();
    else redis.once('ready', () => void this.beat());
  }

  /** Instances live at the last count (at least this one). */
  get live(): number {
    return this.#live;
  }

  /** Says this instance is live and counts the others; the count stays as it was when Redis does not take the write. */
  async beat(): Promise<void> {
    const now = this.#now();
    try {
      await this.#redis.zadd(this.#key, now, this.#id);
      await this.#redis.pexpire(this.#key, GONE_MS * 4);
      await this.#redis.zremrangebyscore(this.#key, '-inf', now - GONE_MS);
      this.#live = Math.max(1, await this.#redis.zcard(this.#key));
    } catch {
      // Kept: see the class comment.
    }
  }

  /** Leaves the set, so the others' shares grow at once rather than after GONE_MS. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#redis.zrem(this.#key, this.#id).catch(() => undefined);
  }
}
