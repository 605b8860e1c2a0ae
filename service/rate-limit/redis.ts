import type { RedisClient } from '../config/redis-target.ts';
import type { CircuitBreaker } from '../resilience/breaker.ts';
import type { MemoryRateLimiter } from './memory.ts';
import type { RateDecision, RateLimiter, RateRule } from './types.ts';
import { ALLOWED } from './types.ts';
import { retryAfterSeconds } from './window.ts';

// Check and count in one atomic round trip; the allow test is window.ts's `weight + 1 <= max`.
const HIT_SCRIPT = `
local max = tonumber(ARGV[1])
local w = tonumber(ARGV[2])
local e = tonumber(ARGV[3])
local curr = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = 0
local weight = curr
if ARGV[4] == 'sliding' then
  prev = tonumber(redis.call('GET', KEYS[2]) or '0')
  weight = prev * (w - e) / w + curr
end
if weight + 1 <= max then
  curr = redis.call('INCR', KEYS[1])
  if curr == 1 then redis.call('PEXPIRE', KEYS[1], w * 2) end
  return {1, prev, curr}
end
return {0, prev, curr}
`;

type HitCommand = (
  current: string,
  previous: string,
  max: number,
  windowMs: number,
  elapsedMs: number,
  algorithm: string,
) => Promise<[number, number, number]>;

export interface RedisRateLimiterOptions {
  /** Key prefix; each limited key becomes `<prefix>:{<key>}:<window ms>:<window index>` (hash tag: one Cluster slot per key). */
  readonly prefix: string;
  /** Used while Redis fails, so limits still hold per instance instead of vanishing. */
  readonly fallback: MemoryRateLimiter;
  readonly onError?: (err: unknown) => void;
  /** Bounds each hit and, after a few slow or failed ones, sends hits straight to the fallback for a while. */
  readonly breaker?: CircuitBreaker;
  readonly now?: () => number;
}

/** Shared limits for several instances: one EVALSHA per hit. Window boundaries come from the instance clocks. */
export class RedisRateLimiter implements RateLimiter {
  readonly #hit: HitCommand;
  readonly #options: RedisRateLimiterOptions;
  readonly #now: () => number;

  constructor(redis: RedisClient, options: RedisRateLimiterOptions) {
    if (!('formguardRateHit' in redis)) redis.defineCommand('formguardRateHit', { numberOfKeys: 2, lua: HIT_SCRIPT });
    const command = (redis as unknown as { formguardRateHit: HitCommand }).formguardRateHit;
    this.#hit = command.bind(redis);
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async hit(key: string, rule: RateRule): Promise<RateDecision> {
    const now = this.#now();
    const index = Math.floor(now / rule.windowMs);
    const elapsed = now - index * rule.windowMs;
    const base = `${this.#options.prefix}:{${key}}:${rule.windowMs}:`;
    const call = () => this.#hit(base + index, base + (index - 1), rule.max, rule.windowMs, elapsed, rule.algorithm);
    let reply: [number, number, number] | undefined;
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
    if (reply === undefined) return this.#options.fallback.hitNow(key, rule);
    const [allowed, prev, curr] = reply;
    return allowed === 1 ? ALLOWED : { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, prev, curr, elapsed) };
  }

  close(): Promise<void> {
    return this.#options.fallback.close();
  }
}
