import type { RedisClient } from '../config/redis-target.ts';
import type { CircuitBreaker } from '../resilience/breaker.ts';
import type { MemoryRateLimiter } from './memory.ts';
import type { RateDecision, RateLimiter, RateRule } from './types.ts';
import { ALLOWED } from './types.ts';
import { retryAfterSeconds, weight } from './window.ts';

// Check and count in one atomic round trip, for up to ARGV[8] hits at once (a lease): the grant is the most hits, up to
// ARGV[8], that window.ts's test `weight + 1 <= max` would still allow one after another, so the count never passes
// what the window allows. ARGV[5] and ARGV[6] are the counts this instance last saw for the two windows: a key that
// came back lower (a Redis restarted without its data, an evicted key) is put back to them, so a lost counter does not
// start the window over. ARGV[7]: hits this instance allowed in this window while Redis could not count them, added
// now. ARGV[9]: hits of this instance's lease of the previous window it never used, given back (sliding only, where
// the previous window still weighs).
const HIT_SCRIPT = `
local max = tonumber(ARGV[1])
local w = tonumber(ARGV[2])
local e = tonumber(ARGV[3])
local want = tonumber(ARGV[8])
local unused = tonumber(ARGV[9])
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
  prev = tonumber(redis.call('GET', KEYS[2]) or '0')
  if unused > 0 and prev > 0 then
    prev = redis.call('DECRBY', KEYS[2], math.min(unused, prev))
  end
  prev = math.max(prev, tonumber(ARGV[6]))
  weight = prev * (w - e) / w + curr
end
if weight + 1 <= max then
  local grant = math.max(1, math.min(want, math.floor(max - weight)))
  curr = redis.call('INCRBY', KEYS[1], grant)
  if curr == grant then redis.call('PEXPIRE', KEYS[1], w * 2) end
  return {grant, prev, curr, restored}
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
  want: number,
  unused: number,
) => Promise<[number, number, number, number]>;

/** Redis answers but refuses to write (maxmemory with noeviction, a read-only replica, a failed snapshot). */
const WRITE_REFUSED = /^(OOM|READONLY|MISCONF|NOREPLICAS)\b/;
/** After a refused write, hits read the counts instead of trying the script again, for this long. */
const READ_ONLY_MS = 1000;
/**
 * Most keys whose last counts are remembered: ~150 B each, so at most ~15 MB. The account limits of every tenant
 * fit many times over; past it the longest idle keys are forgotten (and count as unknown while Redis cannot count).
 * The same bound holds for the keys' leases (~350 B each with the key; a lease forgotten is hits given up, never gained).
 */
export const MAX_SEEN_KEYS = 100_000;
/** Most hits one lease takes (the default of `maxLease`). */
export const MAX_LEASE = 64;
/**
 * A lease is at most this fraction of the limit: 1/64, so a limit under 128 always leases 1 (one round trip a hit), and
 * the hits other instances hold can refuse a key at most (N - 1) / 64 of its limit early.
 */
export const LEASE_LIMIT_DIVISOR = 64;
/** A lease is sized to the key's hits at this instance over the last span this long (so it lasts about that long). */
export const LEASE_SPAN_MS = 100;

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
  /** Most hits one lease takes (default MAX_LEASE); 1 sends every hit to Redis. */
  readonly maxLease?: number;
  readonly now?: () => number;
}

interface Seen {
  index: number;
  prev: number;
  curr: number;
}

/**
 * Hits this instance took from Redis for one key and window and has not allowed yet, and the key's recent rate here.
 * `span`/`inSpan`/`lastSpan`: hits counted per LEASE_SPAN_MS, the last whole span sizing the next lease.
 */
interface Lease {
  index: number;
  left: number;
  /** The limit the hits left were leased under: a lowered limit drops them. */
  max: number;
  span: number;
  inSpan: number;
  lastSpan: number;
  /** The round trip under way for this key: hits arriving meanwhile wait for it instead of sending their own. */
  pending: Promise<Outcome> | undefined;
}

type Reply =
  { readonly kind: 'counted'; readonly reply: [number, number, number, number] } | { readonly kind: 'frozen'; prev: number; curr: number };

/** What one round trip for a key ended in: a lease (grant 0: refused), or counts to take this instance's share of. */
type Outcome =
  | { readonly kind: 'lease'; readonly index: number; readonly grant: number; readonly refusal: RateDecision }
  | { readonly kind: 'share'; readonly index: number; readonly counts: { prev: number; curr: number } };

/**
 * Shared limits for several instances. Window boundaries come from the instance clocks.
 *
 * Leases: one EVALSHA takes up to L hits of a key's window from Redis at once (counted there at once, so never more
 * than the window allows, across every instance), and this instance allows them one by one without asking again; when
 * they are spent it asks again, and a lease refused is a 429. L follows the key's rate here (its hits in the last
 * LEASE_SPAN_MS), between 1 and min(maxLease, limit / 64): a quiet key, or any limit under 128, asks for every hit. The
 * cost (docs/operations.md, "Rate-limit leases"): hits leased and not used by the window's end were counted without
 * being allowed, so a key can be refused up to (N - 1)(L - 1) hits before its limit with N instances (sliding: plus
 * the others' unused hits of the previous window, weighted, until they give them back).
 *
 * When Redis cannot count a hit, an account never gets more than its limit because of it (docs/operations.md, "Rate
 * limits when Redis cannot count"): the instance uses what is left of its lease (counted already), then takes the
 * counts of the window from Redis if it still answers reads (writes refused), else from the last counts Redis gave it
 * for that key, and allows only its share of what is left (what is left, divided by the live instances). A window
 * whose count it never saw, begun before Redis stopped answering, is taken as full while other instances are live:
 * they may have used it up.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #hit: HitCommand;
  readonly #redis: RedisClient;
  readonly #options: RedisRateLimiterOptions;
  readonly #now: () => number;
  readonly #maxLease: number;
  readonly #seen = new Map<string, Seen>();
  readonly #leases = new Map<string, Lease>();
  #readOnlyUntil = -Infinity;
  /** When Redis last stopped answering (no count came back); undefined while it answers. */
  #unreachableSince: number | undefined;

  constructor(redis: RedisClient, options: RedisRateLimiterOptions) {
    if (!('formguardRateLease' in redis)) redis.defineCommand('formguardRateLease', { numberOfKeys: 2, lua: HIT_SCRIPT });
    const command = (redis as unknown as { formguardRateLease: HitCommand }).formguardRateLease;
    this.#hit = command.bind(redis);
    this.#redis = redis;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#maxLease = Math.max(1, Math.floor(options.maxLease ?? MAX_LEASE));
  }

  async hit(key: string, rule: RateRule): Promise<RateDecision> {
    const base = `${this.#options.prefix}:{${key}}:${rule.windowMs}:`;
    const lease = this.#lease(base);
    this.#count(lease);
    for (;;) {
      const now = this.#now();
      const index = Math.floor(now / rule.windowMs);
      // A limit lowered since the lease (tenants file reloaded) drops what is left of it.
      if (lease.max > rule.max) lease.left = 0;
      if (lease.index === index && lease.left > 0) {
        lease.left -= 1;
        return ALLOWED;
      }
      const under = lease.pending;
      if (under !== undefined) {
        const outcome = await under;
        // Cleared here too, so a settled round trip can never be waited on again in this loop.
        if (lease.pending === under) lease.pending = undefined;
        if (outcome.index !== index) continue;
        // Waiters share the round trip's answer: a refusal refuses them too; counts are shared out hit by hit.
        if (outcome.kind === 'share') return this.#share(key, rule, index, now - index * rule.windowMs, outcome.counts);
        if (outcome.grant === 0) return outcome.refusal;
        continue;
      }
      const pending = this.#take(key, rule, base, lease, now);
      lease.pending = pending;
      const outcome = await pending.finally(() => {
        if (lease.pending === pending) lease.pending = undefined;
      });
      if (outcome.kind === 'share') return this.#share(key, rule, outcome.index, now - outcome.index * rule.windowMs, outcome.counts);
      return outcome.grant === 0 ? outcome.refusal : ALLOWED;
    }
  }

  /** One round trip: a lease of up to L hits for the window of `now`, or the counts to share out when Redis cannot count. */
  async #take(key: string, rule: RateRule, base: string, lease: Lease, now: number): Promise<Outcome> {
    const index = Math.floor(now / rule.windowMs);
    const elapsed = now - index * rule.windowMs;
    const seen = this.#seen.get(base);
    const seenCurr = seen?.index === index ? seen.curr : 0;
    // Hits leased in the previous window and never used were never allowed: given back, they stop weighing on this one.
    const unused = rule.algorithm === 'sliding' && lease.index === index - 1 ? lease.left : 0;
    const seenPrev = seen?.index === index ? seen.prev : seen?.index === index - 1 ? seen.curr - unused : 0;
    // Given back at most once: a call that timed out here may still have run in Redis.
    if (lease.index !== index) lease.left = 0;
    const owed = this.#options.fallback.counted(key, rule.windowMs, index);
    const want = this.#size(lease, rule);
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
          want,
          unused,
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
      return { kind: 'share', index, counts: this.#known(seen, index, rule) };
    }
    this.#unreachableSince = undefined;
    if (reply.kind === 'frozen') return { kind: 'share', index, counts: reply };
    const [grant, prev, curr, restored] = reply.reply;
    if (restored === 1) this.#options.onRestored?.();
    if (owed > 0) this.#options.fallback.forget(key);
    this.#remember(base, { index, prev, curr });
    if (lease.index !== index) lease.left = 0;
    lease.index = index;
    lease.max = rule.max;
    // The hit that asked takes the lease's first (here, before any waiter can take the rest).
    lease.left += Math.max(0, grant - 1);
    const refusal: RateDecision =
      grant === 0 ? { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, prev, curr, elapsed) } : ALLOWED;
    return { kind: 'lease', index, grant, refusal };
  }

  /** The key's lease entry, kept most recently used last and bounded like the counts seen. */
  #lease(base: string): Lease {
    const lease = this.#leases.get(base) ?? { index: -1, left: 0, max: 0, span: -1, inSpan: 0, lastSpan: 0, pending: undefined };
    keepRecent(this.#leases, base, lease);
    return lease;
  }

  /** Counts a hit into the key's rate here, by LEASE_SPAN_MS spans. */
  #count(lease: Lease): void {
    const span = Math.floor(this.#now() / LEASE_SPAN_MS);
    if (span !== lease.span) {
      lease.lastSpan = span === lease.span + 1 ? lease.inSpan : 0;
      lease.inSpan = 0;
      lease.span = span;
    }
    lease.inSpan += 1;
  }

  /** Hits to ask for: the key's hits here in the last whole span, between 1 and min(maxLease, limit / 64). */
  #size(lease: Lease, rule: RateRule): number {
    const bound = Math.min(this.#maxLease, Math.floor(rule.max / LEASE_LIMIT_DIVISOR));
    return Math.max(1, Math.min(bound, lease.lastSpan));
  }

  close(): Promise<void> {
    this.#seen.clear();
    this.#leases.clear();
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
    keepRecent(this.#seen, base, seen);
  }
}

/** Sets the key as the most recently used and forgets the longest idle past MAX_SEEN_KEYS. */
function keepRecent<V>(map: Map<string, V>, key: string, value: V): void {
  // Map order is insertion order: re-inserting keeps the most recently used last, the longest idle first.
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_SEEN_KEYS) map.delete(map.keys().next().value as string);
}
