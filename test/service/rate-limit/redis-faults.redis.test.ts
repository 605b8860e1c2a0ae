import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import type { RateRule } from '../../../service/rate-limit/types.ts';
import { type OwnRedis, startOwnRedis } from '../../support/own-redis.ts';
import { until } from '../../support/until.ts';

// Redis servers of the test's own, made to refuse writes (maxmemory, noeviction), restarted without persistence, or
// stopped: an account must never get more than its limit because Redis could not count.
const RULE: RateRule = { max: 100, windowMs: 60_000, algorithm: 'fixed' };
// Mid-window and fixed, so every hit of a test falls in one window.
const NOW = 1_700_000_010_000;
const now = () => NOW;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ownRedis = (extra: string[] = []): Promise<OwnRedis> => startOwnRedis('rl-faults', cleanups, extra);

async function client(server: OwnRedis): Promise<Redis> {
  const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  redis.on('error', () => undefined);
  cleanups.push(() => redis.disconnect());
  await until(() => redis.status === 'ready', 'connected');
  return redis;
}

function limiter(redis: Redis, live = 1): RedisRateLimiter {
  const rl = new RedisRateLimiter(redis, {
    prefix: 'fgtest-rl',
    fallback: new MemoryRateLimiter({ now }),
    now,
    liveInstances: () => live,
  });
  cleanups.push(() => rl.close());
  return rl;
}

async function allowed(rl: RedisRateLimiter, hits: number, key = 'acct:acme'): Promise<number> {
  let n = 0;
  for (let i = 0; i < hits; i++) if ((await rl.hit(key, RULE)).allowed) n++;
  return n;
}

/** Fills the server's memory with junk until it refuses writes (OOM), and keeps it over its limit. */
async function fill(redis: Redis): Promise<void> {
  const junk = 'x'.repeat(64 * 1024);
  for (let i = 0; ; i++) {
    try {
      await redis.set(`junk:${i}`, junk);
    } catch (err) {
      if (/OOM/.test((err as Error).message)) break;
      throw err;
    }
  }
  // A refused write frees its own buffers, which can bring memory back just under the line: set the line below.
  const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  await redis.config('SET', 'maxmemory', String(Math.floor(used * 0.9)));
  await expect(redis.incr('probe')).rejects.toThrow(/OOM/);
}

describe('rate limits when Redis cannot count', () => {
  it('Redis refusing writes (maxmemory, noeviction): one instance allows what the window had left, not a fresh limit', async () => {
    const server = await ownRedis(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
    const redis = await client(server);
    const rl = limiter(redis);
    expect(await allowed(rl, 40)).toBe(40);
    await fill(redis);
    // Redis answers reads but counts nothing more: 60 left of the 100, not another 100.
    expect(await allowed(rl, 200)).toBe(60);
  });

  it('Redis refusing writes, two instances: together they allow what was left, each its share', async () => {
    const server = await ownRedis(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
    const redis = await client(server);
    const a = limiter(redis, 2);
    const b = limiter(await client(server), 2);
    expect(await allowed(a, 20)).toBe(20);
    expect(await allowed(b, 20)).toBe(20);
    await fill(redis);
    const more = (await allowed(a, 200)) + (await allowed(b, 200));
    expect(40 + more).toBeLessThanOrEqual(100);
    expect(more).toBe(60);
  });

  it('Redis restarted without persistence: the window goes on from the counts last seen, not from zero', async () => {
    const server = await ownRedis();
    const redis = await client(server);
    let restored = 0;
    const rl = new RedisRateLimiter(redis, {
      prefix: 'fgtest-rl',
      fallback: new MemoryRateLimiter({ now }),
      now,
      onRestored: () => restored++,
    });
    cleanups.push(() => rl.close());
    expect(await allowed(rl, 60)).toBe(60);
    // Killed outright and started again empty (no snapshot, no AOF): every counter is gone.
    server.kill();
    await server.start();
    await until(() => redis.status === 'ready', 'limiter reconnected');
    expect(await allowed(rl, 200)).toBe(40);
    expect(restored).toBeGreaterThan(0);
    expect(Number(await redis.get(`fgtest-rl:{acct:acme}:60000:${Math.floor(NOW / 60_000)}`))).toBe(100);
  });

  it('a counter evicted (allkeys-lru) is put back: a limit of 3 a minute lets 3 through, not one per eviction', async () => {
    const server = await ownRedis(['--maxmemory-policy', 'allkeys-lru']);
    const redis = await client(server);
    const rl = limiter(redis);
    const rule: RateRule = { max: 3, windowMs: 60_000, algorithm: 'fixed' };
    let through = 0;
    for (let i = 0; i < 15; i++) {
      if ((await rl.hit('acct:small', rule)).allowed) through++;
      // What an LRU eviction does to the counter between two hits.
      await redis.del(`fgtest-rl:{acct:small}:60000:${Math.floor(NOW / 60_000)}`);
    }
    expect(through).toBe(3);
  });

  it('Redis down: one instance goes on from its last count; with others live, a window it never saw is taken as full', async () => {
    const server = await ownRedis();
    const redis = await client(server);
    const alone = limiter(redis, 1);
    const shared = limiter(await client(server), 3);
    expect(await allowed(alone, 40)).toBe(40);
    expect(await allowed(shared, 30, 'acct:other')).toBe(30);
    server.kill();
    await until(() => redis.status !== 'ready', 'limiter saw Redis go');
    // 60 left, all of it this instance's: it is the only one.
    expect(await allowed(alone, 200)).toBe(60);
    // 70 left of acct:other, a third of it this instance's; acct:acme it never saw counted, and others may have used it.
    expect(await allowed(shared, 200, 'acct:other')).toBe(23);
    expect(await allowed(shared, 10)).toBe(0);
  });

  describe('with leases running (a busy key, the clock moving: each instance holds hits it took and has not used)', () => {
    const BUSY: RateRule = { max: 1_000, windowMs: 60_000, algorithm: 'fixed' };
    const clock = { t: NOW };
    const moving = () => clock.t;
    function busyLimiter(redis: Redis, live = 1, onRestored?: () => void): RedisRateLimiter {
      const rl = new RedisRateLimiter(redis, {
        prefix: 'fgtest-rl-lease',
        fallback: new MemoryRateLimiter({ now: moving }),
        now: moving,
        liveInstances: () => live,
        ...(onRestored === undefined ? {} : { onRestored }),
      });
      cleanups.push(() => rl.close());
      return rl;
    }
    // A hit a millisecond: leases of up to 15 (the limit's 64th), all in one window.
    async function busy(rl: RedisRateLimiter, hits: number): Promise<number> {
      let n = 0;
      for (let i = 0; i < hits; i++) {
        if ((await rl.hit('acct:busy', BUSY)).allowed) n++;
        clock.t += 1;
      }
      return n;
    }

    it('Redis restarted without persistence: exactly the limit over the window, the counter put back', async () => {
      clock.t = NOW - 5_000;
      const server = await ownRedis();
      const redis = await client(server);
      let restored = 0;
      const rl = busyLimiter(redis, 1, () => restored++);
      expect(await busy(rl, 600)).toBe(600);
      server.kill();
      await server.start();
      await until(() => redis.status === 'ready', 'limiter reconnected');
      expect(await busy(rl, 2_000)).toBe(400);
      expect(restored).toBeGreaterThan(0);
      expect(Number(await redis.get(`fgtest-rl-lease:{acct:busy}:60000:${Math.floor(clock.t / 60_000)}`))).toBe(1_000);
    });

    it('Redis refusing writes, two instances: together never past the limit, what each held still theirs', async () => {
      clock.t = NOW - 5_000;
      const server = await ownRedis(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
      const redis = await client(server);
      const a = busyLimiter(redis, 2);
      const b = busyLimiter(await client(server), 2);
      const before = (await busy(a, 300)) + (await busy(b, 300));
      expect(before).toBe(600);
      await fill(redis);
      const more = (await busy(a, 1_000)) + (await busy(b, 1_000));
      expect(before + more).toBeLessThanOrEqual(1_000);
      // Each instance's share of what is left is whole hits only: at most one lost to rounding each.
      expect(before + more).toBeGreaterThanOrEqual(998);
    });

    it('Redis down, one instance: the hits it held, then what the window had left, exactly the limit', async () => {
      clock.t = NOW - 5_000;
      const server = await ownRedis();
      const redis = await client(server);
      const rl = busyLimiter(redis, 1);
      expect(await busy(rl, 600)).toBe(600);
      server.kill();
      await until(() => redis.status !== 'ready', 'limiter saw Redis go');
      expect(await busy(rl, 2_000)).toBe(400);
    });
  });
});
