import type { RedisClient } from '../config/redis-target.ts';
import type { CircuitBreaker } from '../resilience/breaker.ts';
import type { MemoryRateLimiter } from './memory.ts';
import type { RateDecision, RateLimiter, RateRule } from './types.ts';
import { ALLOWED } from './types.ts';
import { retryAfterSeconds, weight } from './window.ts';

// Check and count in one atomic round trip; the allow test is window.ts's `weight + 1 <= max`. ARGV[5] and ARGV[6] are
// the counts this instance last saw for the two windows: a key that came back lower (a Redis restarted without its
// data, an evicted key) is put back to them, so a lost counter does not start the window over. ARGV[7]: hits this
// instance allowed in this window while Redis could not count them, added now.
const HIT_SCRIPT = `
local max = tonumber(ARGV[1])
local w = tonumber(ARGV[2])
local e = tonumber(ARGV[3])
local restored = 0
local curr = tonumber(redis.call('GET', KEYS[1]) or '0')
local seenCurr = tonumber(ARGV[5])
if curr < seenCurr then
  curr = seenCurr
  restored = 1
  redis.call('SET', KEYS[1], curr, 'PX', w * 2)
end
local owed = tonumber(ARGV[7])
if owed > 0 then
  curr = curr + owed
  redis.call('SET', KEYS[1], curr, 'PX', w * 2)
end
local prev = 0
local weight = curr
if ARGV[4] == 'sliding' then
  prev = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(ARGV[6]))
  weight = prev * (w - e) / w + curr
end
if weight + 1 <= max then
  curr = redis.call('INCR', KEYS[1])
  if curr == 1 then redis.call('PEXPIRE', KEYS[1], w * 2) end
  return {1, prev, curr, restored}
end
return {0, prev, curr, restored}
`;

type HitCommand = (
  current: string,
  previous: string,
  max: number,
  windowMs: number,
  elapsedMs: number,
  algorithm: string,
  seenCurrent: number,
  seenPrevious: number,
  owed: number,
) => Promise<[number, number, number, number]>;

/** Redis answers but refuses to write (maxmemory with noeviction, a read-only replica, a failed snapshot). */
const WRITE_REFUSED = /^(OOM|READONLY|MISCONF|NOREPLICAS)\b/;
/** After a refused write, hits read the counts instead of trying the script again, for this long. */
const READ_ONLY_MS = 1000;
/**
 * Most keys whose last counts are remembered: ~150 B each, so at most ~15 MB. The account limits of every tenant
 * fit many times over; past it the longest idle keys are forgotten (and count as unknown while Redis cannot count).
 */
export const MAX_SEEN_KEYS = 100_000;

export interface RedisRateLimiterOptions {
  /** Key prefix; each limited key becomes `<prefix>:{<key>}:<window ms>:<window index>` (hash tag: one Cluster slot per key). */
  readonly prefix: string;
  /** This instance's own count while Redis cannot count (its limit there is its share of what is left). */
  readonly fallback: MemoryRateLimiter;
  readonly onError?: (err: unknown) => void;
  /** Bounds each hit and, after a few slow or failed ones, sends hits straight to the fallback for a while. */
  readonly breaker?: CircuitBreaker;
  /** Service instances sharing the limits now (InstanceHeartbeat); 1 when not given. */
  readonly liveInstances?: () => number;
  /** A counter Redis had lost (restart without persistence, eviction) was put back from the counts last seen. */
  readonly onRestored?: () => void;
  readonly now?: () => number;
}

interface Seen {
  index: number;
  prev: number;
  curr: number;
}

type Reply =
  { readonly kind: 'counted'; readonly reply: [number, number, number, number] } | { readonly kind: 'frozen'; prev: number; curr: number };

/**
 * Shared limits for several instances: one EVALSHA per hit. Window boundaries come from the instance clocks.
 *
 * When Redis cannot count a hit, an account never gets more than its limit because of it (docs/operations.md, "Rate
 * limits when Redis cannot count"): the instance takes the counts of the window from Redis if it still answers reads
 * (writes refused), else from the last counts Redis gave it for that key, and allows only its share of what is left
 * (what is left, divided by the live instances). A window whose count it never saw, begun before Redis stopped
 * answering, is taken as full while other instances are live: they may have used it up.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #hit: HitCommand;
  readonly #redis: RedisClient;
  readonly #options: RedisRateLimiterOptions;
  readonly #now: () => number;
  readonly #seen = new Map<string, Seen>();
  #readOnlyUntil = -Infinity;
  /** When Redis last stopped answering (no count came back); undefined while it answers. */
  #unreachableSince: number | undefined;

  constructor(redis: RedisClient, options: RedisRateLimiterOptions) {
    if (!('formguardRateHit2' in redis)) redis.defineCommand('formguardRateHit2', { numberOfKeys: 2, lua: HIT_SCRIPT });
    const command = (redis as unknown as { formguardRateHit2: HitCommand }).formguardRateHit2;
    this.#hit = command.bind(redis);
    this.#redis = redis;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async hit(key: string, rule: RateRule): Promise<RateDecision> {
    const now = this.#now();
    const index = Math.floor(now / rule.windowMs);
    const elapsed = now - index * rule.windowMs;
    const base = `${this.#options.prefix}:{${key}}:${rule.windowMs}:`;
    const seen = this.#seen.get(base);
    const seenCurr = seen?.index === index ? seen.curr : 0;
    const seenPrev = seen?.index === index ? seen.prev : seen?.index === index - 1 ? seen.curr : 0;
    const owed = this.#options.fallback.counted(key, rule.windowMs, index);
    const call = async (): Promise<Reply> => {
      if (this.#now() < this.#readOnlyUntil) return this.#read(base, index);
      try {
        const reply = await this.#hit(
          base + index,
          base + (index - 1),
          rule.max,
          rule.windowMs,
          elapsed,
          rule.algorithm,
          seenCurr,
          seenPrev,
          owed,
        );
        return { kind: 'counted', reply };
      } catch (err) {
        if (!WRITE_REFUSED.test((err as Error).message ?? '')) throw err;
        this.#options.onError?.(err);
        this.#readOnlyUntil = this.#now() + READ_ONLY_MS;
        return this.#read(base, index);
      }
    };
    let reply: Reply | undefined;
    const breaker = this.#options.breaker;
    if (breaker === undefined) {
      try {
        reply = await call();
      } catch (err) {
        this.#options.onError?.(err);
      }
    } else {
      reply = await breaker.run(call, (err) => {
        if (!breaker.isOpen) this.#options.onError?.(err);
        return undefined;
      });
    }
    if (reply === undefined) {
      this.#unreachableSince ??= now;
      return this.#share(key, rule, index, elapsed, this.#known(seen, index, rule));
    }
    this.#unreachableSince = undefined;
    if (reply.kind === 'frozen') return this.#share(key, rule, index, elapsed, reply);
    const [allowed, prev, curr, restored] = reply.reply;
    if (restored === 1) this.#options.onRestored?.();
    if (owed > 0) this.#options.fallback.forget(key);
    this.#remember(base, { index, prev, curr });
    return allowed === 1 ? ALLOWED : { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, prev, curr, elapsed) };
  }

  close(): Promise<void> {
    this.#seen.clear();
    return this.#options.fallback.close();
  }

  /** The window's counts as Redis holds them, read without writing (allowed when Redis refuses writes). */
  async #read(base: string, index: number): Promise<Reply> {
    const [curr, prev] = await this.#redis.mget(base + index, base + (index - 1));
    const seen = this.#seen.get(base);
    // What this instance saw may be more than Redis still has (a counter lost before the writes were refused).
    const seenCurr = seen?.index === index ? seen.curr : 0;
    const seenPrev = seen?.index === index ? seen.prev : seen?.index === index - 1 ? seen.curr : 0;
    return { kind: 'frozen', curr: Math.max(Number(curr ?? 0), seenCurr), prev: Math.max(Number(prev ?? 0), seenPrev) };
  }

  /** The two windows' counts as last seen; a window never seen, begun before Redis stopped answering, is full when others share it. */
  #known(seen: Seen | undefined, index: number, rule: RateRule): { prev: number; curr: number } {
    const countOf = (i: number): number => {
      if (seen?.index === i) return seen.curr;
      if (seen?.index === i + 1) return seen.prev;
      const began = i * rule.windowMs;
      // No instance could count in Redis during the outage; alone, this instance saw every hit itself.
      if (began >= (this.#unreachableSince ?? Infinity) || this.#live() <= 1) return 0;
      return rule.max;
    };
    return { curr: countOf(index), prev: rule.algorithm === 'sliding' ? countOf(index - 1) : 0 };
  }

  /** This instance's share of what the counts leave: its own hits are counted in memory against it. */
  #share(key: string, rule: RateRule, index: number, elapsed: number, counts: { prev: number; curr: number }): RateDecision {
    const left = Math.max(0, rule.max - weight(rule, counts.prev, counts.curr, elapsed));
    const share = left / this.#live();
    const decision = this.#options.fallback.hitNow(key, { ...rule, max: share });
    if (decision.allowed) return decision;
    // Retry-After from the shared counts: the share frees up when the window does.
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, counts.prev, Math.max(counts.curr, rule.max), elapsed) };
  }

  #live(): number {
    return Math.max(1, Math.floor(this.#options.liveInstances?.() ?? 1));
  }

  #remember(base: string, seen: Seen): void {
    // Map order is insertion order: re-inserting keeps the most recently used last, the longest idle first.
    this.#seen.delete(base);
    this.#seen.set(base, seen);
    if (this.#seen.size > MAX_SEEN_KEYS) this.#seen.delete(this.#seen.keys().next().value as string);
  }
}
