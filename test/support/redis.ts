import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

/** The Redis every integration test uses: TEST_REDIS_URL, or the local one. Suites keep to key prefixes of their own. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** REDIS_URL with a database number one past the last the server has (its `databases` setting; 16 by default). */
export async function missingDatabaseUrl(): Promise<{ url: string; db: number }> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const [, count] = (await redis.config('GET', 'databases')) as [string, string];
    const url = new URL(REDIS_URL);
    url.pathname = `/${count}`;
    return { url: url.toString(), db: Number(count) };
  } finally {
    redis.disconnect();
  }
}

/** A prefix of its own for each suite, so suites can run side by side and be cleaned up. */
export function testPrefix(name: string): string {
  return `fgtest-${name}-${randomBytes(4).toString('hex')}`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export interface TestRedis {
  /** A connection to REDIS_URL, closed after the file's tests. */
  readonly redis: Redis;
  /** A new prefix of the file's own (testPrefix(name)), its keys deleted after the file's tests. */
  prefix(): string;
}

/**
 * The shared Redis for one test file, with key prefixes handed out by `prefix()`. Call it at the top of the file: it
 * registers the afterAll that deletes every key under each prefix handed out (never a FLUSHDB) and then closes the
 * connection. Vitest runs after-hooks last registered first (sequence.hooks "stack", the default), so an afterAll the
 * file registers after this call (closing a worker or a queue that still writes under a prefix) runs before it.
 */
export function useTestRedis(name: string): TestRedis {
  const redis = new Redis(REDIS_URL);
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const p of prefixes) await deleteKeys(redis, p);
    redis.disconnect();
  });
  return {
    redis,
    prefix() {
      const prefix = testPrefix(name);
      prefixes.push(prefix);
      return prefix;
    },
  };
}
