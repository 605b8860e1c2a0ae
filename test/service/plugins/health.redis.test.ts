import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Classifier } from '../../../core/classifier/types.ts';
import { buildAdminApp } from '../../../service/admin.ts';
import { ORIGIN, stubClassifier, testApp, verifyBody } from '../helpers.ts';
import { CheckedRedis, firstConnection } from '../../../service/config/redis.ts';
import { missingDatabaseUrl, REDIS_URL } from '../../support/redis.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** formguard_redis_up and the rest, as the admin server serves them. */
async function scrape(from: FastifyInstance): Promise<string> {
  const admin = await buildAdminApp(from);
  try {
    return (await admin.inject({ method: 'GET', url: '/metrics' })).body;
  } finally {
    await admin.close();
  }
}

describe('/healthz and /readyz', () => {
  it('healthz is 200 while up; readyz is 503 until the model is loaded, then 200', async () => {
    let resolve!: (c: Classifier) => void;
    app = await testApp({ classifier: new Promise<Classifier>((r) => (resolve = r)) });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const before = await app.inject({ method: 'GET', url: '/readyz' });
    expect(before.statusCode).toBe(503);
    expect(before.json().problems).toContain('model is loading');
    resolve(stubClassifier());
    await new Promise((r) => setImmediate(r));
    const after = await app.inject({ method: 'GET', url: '/readyz' });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ status: 'ready', modelVersion: 'stub-1', shadowVersion: null });
  });

  it('readyz is 503 when the model failed to load', async () => {
    const failing = Promise.reject(new Error('no model'));
    app = await testApp({ classifier: failing });
    await failing.catch(() => {});
    await new Promise((r) => setImmediate(r));
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().problems).toContain('model failed to load');
  });

  it('readyz reports Redis, up or down, but stays 200 without it: the instance still classifies', async () => {
    const live = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    app = await testApp({ redis: live });
    const up = await app.inject({ method: 'GET', url: '/readyz' });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ status: 'ready', modelVersion: 'stub-1', shadowVersion: null, redis: 'up' });
    expect(await scrape(app)).toMatch(/^formguard_redis_up 1$/m);
    await app.close();
    live.disconnect();

    // A shared Redis that fails must not take every instance out of the load balancer: verify keeps answering.
    const dead = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    dead.on('error', () => {});
    app = await testApp({ redis: dead });
    const down = await app.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(200);
    expect(down.json()).toEqual({ status: 'ready', modelVersion: 'stub-1', shadowVersion: null, redis: 'down' });
    expect(await scrape(app)).toMatch(/^formguard_redis_up 0$/m);
    const verify = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    expect(verify.statusCode).toBe(200);
    dead.disconnect();
  });

  it('a database the server refuses is Redis down, with the reason, not "up" on another database', async () => {
    const { url, db } = await missingDatabaseUrl();
    const refused = new CheckedRedis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    refused.on('error', () => {});
    await firstConnection(refused, 5_000);
    app = await testApp({ redis: refused });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'ready',
        modelVersion: 'stub-1',
        shadowVersion: null,
        redis: 'down',
        redisError: expect.stringContaining(`REDIS_URL names database ${db}`),
      });
      expect(await scrape(app)).toMatch(/^formguard_redis_up 0$/m);
    } finally {
      refused.disconnect();
    }
  });

  it('readyz is 503 while the model loads, and says how Redis is', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    app = await testApp({ redis: dead, classifier: new Promise<Classifier>(() => {}) });
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'not-ready', problems: ['model is loading'], redis: 'down' });
    dead.disconnect();
  });
});
