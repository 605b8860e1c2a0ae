import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedis } from '../../../service/config/redis.ts';
import { RedisWatch } from '../../../service/config/redis-watch.ts';
import { workerConnection } from '../../../service/review/connection.ts';
import { captureLines, silent } from '../../support/logs.ts';
import { type OwnRedis, startOwnRedis } from '../../support/own-redis.ts';
import { until } from '../../support/until.ts';

// Redis servers of the test's own: restarted without persistence, filled to maxmemory, set to evict, out of client
// slots. Each time /readyz's detail, the metrics and the log must say so.
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ownRedis = (extra: string[] = []): Promise<OwnRedis> => startOwnRedis('redis-watch', cleanups, extra);

async function watching(server: OwnRedis, counts?: () => Promise<Record<string, number>>) {
  const redis = createRedis(server.url, silent);
  redis.on('error', () => undefined);
  cleanups.push(() => redis.disconnect());
  await until(() => redis.status === 'ready', 'connected');
  const lines = captureLines();
  const registry = new Registry();
  const watch = new RedisWatch({
    redis,
    log: lines.logger,
    registry,
    sentinelKey: 'fgtest:sentinel',
    checkMs: 3_600_000,
    ...(counts === undefined ? {} : { counts }),
  });
  cleanups.push(() => watch.close());
  await watch.check();
  const metric = async (name: string) => (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? [];
  return { redis, watch, lines, metric };
}

describe('RedisWatch', () => {
  it('a Redis restarted without persistence: /readyz, the metrics and an error line say its data is gone, with what was there', async () => {
    const server = await ownRedis();
    let pending = 10_000;
    const { redis, watch, lines, metric } = await watching(server, async () => ({ pending }));
    expect(watch.problems()).toEqual([]);
    server.kill();
    await server.start();
    pending = 0;
    await until(() => redis.status === 'ready', 'reconnected');
    await watch.check();
    expect((watch.detail().redisProblems as string[]).join('\n')).toMatch(/restarted without its data/);
    expect((await metric('formguard_redis_data_lost_total'))[0]?.value).toBe(1);
    const line = lines
      .text()
      .split('\n')
      .find((l) => l.includes('restarted without its data'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 50, before: { pending: 10_000 }, after: { pending: 0 } });
    // And a restart that kept its data is no loss.
    await watch.check();
    const before = (await metric('formguard_redis_data_lost_total'))[0]?.value;
    await redis.save();
    await server.stop();
    await server.start(['--dbfilename', 'dump.rdb']);
    await until(() => redis.status === 'ready', 'reconnected');
    await watch.check();
    expect((await metric('formguard_redis_data_lost_total'))[0]?.value).toBe(before);
  });

  it('Redis at maxmemory with noeviction: says writes are refused, with used and max memory', async () => {
    const server = await ownRedis(['--maxmemory-policy', 'noeviction']);
    const { redis, watch, lines, metric } = await watching(server);
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    await redis.config('SET', 'maxmemory', String(Math.floor(used * 0.9)));
    await watch.check();
    expect(watch.problems().join('\n')).toMatch(/refuses writes \(OOM\): used_memory \d+ of maxmemory \d+/);
    expect((await metric('formguard_redis_writes_refused'))[0]?.value).toBe(1);
    expect(lines.text()).toMatch(/"level":50.*redis refuses writes/);
    // It recovers by itself when memory frees.
    await redis.config('SET', 'maxmemory', '0');
    await watch.check();
    expect(watch.problems()).toEqual([]);
    expect((await metric('formguard_redis_writes_refused'))[0]?.value).toBe(0);
  });

  it('an eviction policy other than noeviction: an error line, a /readyz problem and a metric', async () => {
    const server = await ownRedis(['--maxmemory-policy', 'allkeys-lru']);
    const { watch, lines, metric } = await watching(server);
    expect(watch.problems().join('\n')).toMatch(/maxmemory-policy is allkeys-lru/);
    expect((await metric('formguard_redis_eviction_policy_unsafe'))[0]?.value).toBe(1);
    expect(lines.text()).toMatch(/"level":50.*maxmemory-policy is not noeviction/);
  });

  it('keys evicted at the memory limit (allkeys-lru): counted, an error line and a /readyz problem', async () => {
    const server = await ownRedis(['--maxmemory-policy', 'allkeys-lru']);
    const { redis, watch, lines, metric } = await watching(server);
    expect((await metric('formguard_redis_evicted_keys_total'))[0]?.value).toBe(0);
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    await redis.config('SET', 'maxmemory', String(used + 1_000_000));
    const value = 'x'.repeat(1_000);
    for (let i = 0; i < 3_000; i += 100)
      await redis.mset(...Array.from({ length: 100 }, (_, j) => [`fgtest:evict:${i + j}`, value]).flat());
    const evicted = Number(/evicted_keys:(\d+)/.exec(await redis.info('stats'))?.[1]);
    expect(evicted).toBeGreaterThan(0);
    await watch.check();
    expect((await metric('formguard_redis_evicted_keys_total'))[0]?.value).toBe(evicted);
    expect(watch.problems().join('\n')).toMatch(new RegExp(`redis evicted ${evicted} keys`));
    expect(lines.text()).toMatch(/"level":50.*"evictedKeys":\d+.*redis evicted keys/);
    // Counted once: a check that finds no new eviction adds nothing.
    await watch.check();
    expect((await metric('formguard_redis_evicted_keys_total'))[0]?.value).toBe(evicted);
  });

  it('a review worker connection refused (maxclients): shown not ready until it reconnects by itself', async () => {
    const server = await ownRedis(['--maxclients', '2']);
    const { watch, lines, metric } = await watching(server);
    // The watch's own connection is one client; this takes the last slot.
    const hog = new Redis(server.url);
    await hog.ping();
    const worker = workerConnection({ kind: 'server', url: server.url }, silent);
    worker.on('error', () => undefined);
    cleanups.push(() => worker.disconnect());
    watch.watch('review-worker', worker);
    await until(() => watch.problems().some((p) => p.includes('review-worker')), 'connection shown not ready');
    expect((await metric('formguard_redis_connection_ready')).find((v) => v.labels.role === 'review-worker')?.value).toBe(0);
    expect(watch.detail().redisConnections).toMatchObject({ limiter: 'ready' });
    hog.disconnect();
    await until(() => worker.status === 'ready', 'the worker connection back by itself');
    expect(watch.problems()).toEqual([]);
    expect((await metric('formguard_redis_connection_ready')).find((v) => v.labels.role === 'review-worker')?.value).toBe(1);
    expect(lines.text()).toMatch(/connection not ready/);
    expect(lines.text()).toMatch(/connection ready again/);
  });
});
