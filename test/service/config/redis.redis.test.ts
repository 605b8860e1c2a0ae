import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckedRedis, firstConnection, type CheckedRedisOptions } from '../../../service/config/redis.ts';
import { missingDatabaseUrl, REDIS_URL } from '../../support/redis.ts';

const key = `formguard-test:select:${randomBytes(6).toString('hex')}`;
let missing: { url: string; db: number };
let plain: Redis;
const opened: Redis[] = [];

function checked(url: string, options: CheckedRedisOptions = {}): CheckedRedis {
  const redis = new CheckedRedis(url, { maxRetriesPerRequest: 2, retryStrategy: () => 20, ...options });
  redis.on('error', () => {});
  opened.push(redis);
  return redis;
}

beforeAll(async () => {
  missing = await missingDatabaseUrl();
  plain = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  for (const r of opened) r.disconnect();
  // Nothing should be there; should a regression have written it, it goes.
  await plain.del(key);
  plain.disconnect();
});

describe('CheckedRedis: a database the server refuses (real Redis at TEST_REDIS_URL or 127.0.0.1:6379)', () => {
  it('is reported on the first connection and never used: no command reaches another database', async () => {
    // The offline queue holds this command until the connection is ready; plain ioredis then ran it on database 0.
    const redis = checked(missing.url);
    const write = redis.set(key, 'written');
    const refused = await firstConnection(redis, 5_000);
    expect(refused?.message).toBe(
      `REDIS_URL names database ${missing.db}, which the Redis server at ${new URL(REDIS_URL).host} refused (SELECT ${missing.db}: "ERR DB index is out of range"); a default server has 16 databases, 0 to 15 (its "databases" setting)`,
    );
    await expect(write).rejects.toThrow();
    expect(redis.status).not.toBe('ready');
    expect(redis.databaseError?.db).toBe(missing.db);
    expect(await plain.exists(key)).toBe(0);
  });

  it('checks the copies duplicate() makes (BullMQ reads jobs on one) the same way', async () => {
    const copy = checked(missing.url).duplicate({ connectionName: 'copy' }) as CheckedRedis;
    copy.on('error', () => {});
    opened.push(copy);
    expect(copy).toBeInstanceOf(CheckedRedis);
    await expect(copy.set(key, 'written by the copy')).rejects.toThrow();
    expect(copy.databaseError?.db).toBe(missing.db);
    expect(await plain.exists(key)).toBe(0);
  });

  it('a database the server has connects as usual, with no error', async () => {
    const url = new URL(REDIS_URL);
    url.pathname = `/${missing.db - 1}`;
    const redis = checked(url.toString());
    expect(await firstConnection(redis, 5_000)).toBeUndefined();
    expect(await redis.ping()).toBe('PONG');
    expect(redis.databaseError).toBeUndefined();
  });

  it('an unreachable server is no database error: start-up goes on without Redis', async () => {
    const redis = checked('redis://127.0.0.1:1/3', { retryStrategy: () => null });
    expect(await firstConnection(redis, 5_000)).toBeUndefined();
    expect(redis.status).not.toBe('ready');
  });
});
