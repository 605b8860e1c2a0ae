import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import { ORIGIN, tenants, testApp, verifyBody } from '../helpers.ts';
import { tenantsFile } from '../../support/tenants.ts';
import { REDIS_URL } from '../../support/redis.ts';

const prefix = `formguard-test:app:${randomBytes(6).toString('hex')}`;
let redis: Redis;
let a: FastifyInstance;
let b: FastifyInstance;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const shared = tenants(tenantsFile({ rateLimit: { max: 4, windowSeconds: 3600, algorithm: 'sliding' } }));
  const keyFailureRule = { max: 2, windowMs: 3_600_000, algorithm: 'fixed' as const };
  // Two instances: own app, own Redis limiter, one Redis.
  const instance = () =>
    testApp({
      tenants: shared,
      rateLimiter: new RedisRateLimiter(redis, { prefix, fallback: new MemoryRateLimiter() }),
      redis,
      keyFailureRule,
    });
  a = await instance();
  b = await instance();
});

afterAll(async () => {
  await a.close();
  await b.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('two app instances on one Redis (real Redis at TEST_REDIS_URL or 127.0.0.1:6379)', () => {
  it('share one account rate limit', async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) {
      const app = i % 2 === 0 ? a : b;
      codes.push((await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('share the count of failed key checks per IP', async () => {
    const send = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: ORIGIN,
        payload: verifyBody({ apiKey: 'guess' }),
        remoteAddress: '192.0.2.9',
      });
    expect((await send(a)).statusCode).toBe(401);
    expect((await send(b)).statusCode).toBe(401);
    expect((await send(a)).statusCode).toBe(429);
  });

  it('are both ready while Redis answers', async () => {
    for (const app of [a, b]) expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
