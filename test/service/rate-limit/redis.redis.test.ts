import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import type { RateRule } from '../../../service/rate-limit/types.ts';
import { REDIS_URL } from '../../support/redis.ts';

const prefix = `formguard-test:rl:${randomBytes(6).toString('hex')}`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

function limiter(now: () => number, p = prefix) {
  return new RedisRateLimiter(redis, { prefix: p, fallback: new MemoryRateLimiter(), now });
}

describe('Redis rate limiter (real Redis at TEST_REDIS_URL or 127.0.0.1:6379)', () => {
  it('two limiters (two instances) on one Redis share one fixed-window limit', async () => {
    const now = () => 1_700_000_002_000;
    const rule: RateRule = { max: 5, windowMs: 10_000, algorithm: 'fixed' };
    const a = limiter(now);
    const b = limiter(now);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await (i % 2 === 0 ? a : b).hit('acct:shared', rule));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(results[5]).toEqual({ allowed: false, retryAfterSeconds: 8 });
  });

  it('agrees with the in-memory limiter on a sliding-window sequence', async () => {
    const rule: RateRule = { max: 7, windowMs: 10_000, algorithm: 'sliding' };
    const c = { t: 1_700_000_003_000 };
    const viaRedis = limiter(() => c.t);
    const inMemory = new MemoryRateLimiter({ now: () => c.t });
    const steps = [0, 0, 0, 0, 1000, 1000, 3000, 2500, 0, 0, 4000, 0, 0, 0, 0, 1500, 0, 0, 0, 9000, 0, 0];
    for (const step of steps) {
      c.t += step;
      expect(await viaRedis.hit('acct:slide', rule)).toEqual(await inMemory.hit('acct:slide', rule));
    }
    await inMemory.close();
  });

  it('puts both window keys of one limited key in one Cluster hash slot and lets them expire', async () => {
    const rule: RateRule = { max: 2, windowMs: 60_000, algorithm: 'sliding' };
    await limiter(() => 1_700_000_004_000).hit('acct:tagged', rule);
    const keys = await redis.keys(`${prefix}:{acct:tagged}:*`);
    expect(keys).toHaveLength(1);
    const ttl = await redis.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('falls back to counting in memory when Redis fails, so limits still hold', async () => {
    const broken = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    const errors: unknown[] = [];
    const rl = new RedisRateLimiter(broken, { prefix, fallback: new MemoryRateLimiter(), onError: (e) => errors.push(e) });
    const rule: RateRule = { max: 2, windowMs: 60_000, algorithm: 'fixed' };
    const results = [await rl.hit('acct:x', rule), await rl.hit('acct:x', rule), await rl.hit('acct:x', rule)];
    expect(results.map((r) => r.allowed)).toEqual([true, true, false]);
    expect(errors.length).toBeGreaterThan(0);
    await rl.close();
    broken.disconnect();
  });
});
