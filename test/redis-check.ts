import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { REDIS_URL } from './support/redis.ts';

/**
 * The Redis and browser projects' global setup (every file there needs Redis, by its name: see vitest.config.ts).
 * Before any test file runs: when one of the selected files needs Redis and none answers at TEST_REDIS_URL, the run
 * stops at once with one line saying what to start, instead of suites timing out one by one with ECONNREFUSED.
 */
export default async function checkRedis(project: TestProject): Promise<void> {
  // The command line's file filters (vitest keeps them as filenamePattern once the run starts).
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  if (testFiles.length === 0) return;
  if (await redisAnswers()) return;
  console.error(missingRedisLine());
  process.exit(1);
}

/** Whether a Redis answers PING at TEST_REDIS_URL within two seconds. */
export async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** The one line a run without Redis stops with; the URL may carry a password, so only its host and port are shown. */
export function missingRedisLine(): string {
  const url = new URL(REDIS_URL);
  return `Redis is not answering at ${url.hostname}:${url.port || 6379}, and these tests need it: start one (\`redis-server\`, or \`docker run -d -p 6379:6379 redis:7\`) or point TEST_REDIS_URL at one (TEST_REDIS_URL=redis://host:port npm test).`;
}
