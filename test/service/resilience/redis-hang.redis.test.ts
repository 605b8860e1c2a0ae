import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../service/config/redis.ts';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import { CircuitBreaker } from '../../../service/resilience/breaker.ts';
import { readPersistence } from '../../../service/review/persistence.ts';
import { startReview, type Review } from '../../../service/review/setup.ts';
import { ORIGIN, testApp, verifyBody } from '../helpers.ts';
import { freePort } from '../../support/free-port.ts';
import { moderators } from '../review/helpers.ts';
import { OwnRedis } from '../../support/own-redis.ts';
import { silent } from '../../support/logs.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/until.ts';

// A Redis of the test's own is stopped with SIGSTOP: connected, never answering, the way a hung server looks. Every
// call on the verify path (rate limit, failed-key guard, review add) must stop waiting on it after a few tries.
let server: OwnRedis;
let data: Awaited<ReturnType<typeof tempDir>>;
let spool: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  data = await tempDir('hang-redis');
  spool = await tempDir('hang-spool');
  server = new OwnRedis(await freePort(), data.dir);
  await server.start();
});
afterAll(async () => {
  try {
    process.kill(server.pid, 'SIGCONT');
  } catch {
    // already gone
  }
  server.kill();
  await data.remove();
  await spool.remove();
});

describe('a hung Redis on the verify path', () => {
  it('opens the circuit after a few slow calls, answers from the fallbacks without calling Redis, spools review items, and closes again once Redis answers', async () => {
    const redis = createRedis(server.url, silent);
    const registry = new Registry();
    const prefix = `fgtest-hang-${process.pid}`;
    const changes: string[] = [];
    const breaker = new CircuitBreaker({
      failures: 3,
      callTimeoutMs: 50,
      openMs: 200,
      probe: () => redis.ping(),
      onChange: (s) => changes.push(s),
    });
    let limiterErrors = 0;
    const limiter = new RedisRateLimiter(redis, {
      prefix: `${prefix}:rl`,
      fallback: new MemoryRateLimiter(),
      breaker,
      onError: () => limiterErrors++,
    });
    let review: Review | undefined;
    let reviewApp: Awaited<ReturnType<typeof testApp>> | undefined;
    try {
      review = startReview({
        env: {
          REDIS_URL: server.url,
          REVIEW_BAND: 1,
          REVIEW_SAMPLE_RATE: 1,
          REVIEW_RETENTION_DAYS: 30,
          REVIEW_SPOOL_DIR: spool.dir,
          REVIEW_SPOOL_MAX_BYTES: 1 << 20,
          REVIEW_MAX_FIELD_BYTES: 2048,
          REVIEW_KEEP_FIELDS_DAYS: 0,
          BULLMQ_PREFIX: prefix,
        },
        log: silent,
        moderators: moderators([]),
        registry,
        worker: false,
        breaker,
      });
      reviewApp = await testApp({ rateLimiter: limiter, reviewSink: review.sink });
      const app = reviewApp;
      await until(() => redis.status === 'ready', 'limiter connected');
      const verify = (body = verifyBody()) => app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: body });
      expect((await verify()).statusCode).toBe(200);
      await review.sink.flush();
      expect(limiterErrors).toBe(0);

      process.kill(server.pid, 'SIGSTOP');
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await verify()).statusCode);
      for (let i = 0; i < 5; i++) statuses.push((await verify(verifyBody({ apiKey: 'wrong-key-0123456789' }))).statusCode);
      await review.sink.flush();
      // Every request answered from the fallbacks: in-memory limits, the failed-key guard counting in memory too.
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses.slice(40)).toEqual([401, 401, 401, 401, 401]);
      expect(breaker.state).toBe('open');
      // Only the calls that opened the circuit waited on Redis; the rest never tried.
      expect(limiterErrors).toBeLessThanOrEqual(3);
      expect(changes).toEqual(['open']);
      // Flagged (REVIEW_BAND 1: every verdict) and not lost: in the spool, to be sent later.
      const spooled = Number(/formguard_review_spooled_total (\d+)/.exec(await registry.metrics())?.[1]);
      expect(spooled).toBeGreaterThanOrEqual(40);

      process.kill(server.pid, 'SIGCONT');
      await until(() => breaker.state === 'closed', 'circuit closed by a probe');
      expect(changes).toEqual(['open', 'closed']);
      const before = limiterErrors;
      expect((await verify()).statusCode).toBe(200);
      expect(limiterErrors).toBe(before);
      // Counting in Redis again.
      expect((await redis.keys(`${prefix}:rl:*`)).length).toBeGreaterThan(0);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      await reviewApp?.close();
      await review?.close();
      breaker.close();
      redis.disconnect();
    }
  });
});

describe('Redis persistence', () => {
  it('reads none from a server without it, and aof once appendonly is on', async () => {
    const redis = new Redis(server.url);
    try {
      // OwnRedis runs with --save "" --appendonly no: a restart keeps nothing.
      expect(await readPersistence(redis)).toBe('none');
      await redis.config('SET', 'appendonly', 'yes');
      expect(await readPersistence(redis)).toBe('aof');
      await redis.config('SET', 'appendonly', 'no');
      await redis.config('SET', 'save', '3600 1');
      expect(await readPersistence(redis)).toBe('rdb');
      await redis.config('SET', 'save', '');
    } finally {
      redis.disconnect();
    }
  });

  it('reads unknown when the server refuses CONFIG', async () => {
    const port = await freePort();
    const own = new OwnRedis(port, data.dir);
    // A server with CONFIG renamed away, as managed Redis services do.
    await own.start(['--rename-command', 'CONFIG', '']);
    const redis = new Redis(own.url);
    try {
      expect(await readPersistence(redis)).toBe('unknown');
    } finally {
      redis.disconnect();
      own.kill();
    }
  });
});
