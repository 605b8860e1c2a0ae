import type { Redis } from 'ioredis';
import { CommandError } from '../../core/cli/usage.ts';
import { ConfigError, parseEnv } from '../config/env.ts';
import { CheckedRedis } from '../config/redis.ts';
import { ReviewStore } from './store/review-store.ts';

/**
 * The review store of REDIS_URL, for the terminal tools (they talk to Redis directly); a CommandError (exit 2) when it
 * cannot be reached or REDIS_URL is unset (`withoutRedis` then says what else the tool can do). `where` names the database and
 * key prefix (never the password): an empty answer from the wrong one must not read as "nothing to do".
 */
export async function openStore(
  opts: { withoutRedis?: string } = {},
): Promise<{ store: ReviewStore; redis: Redis; env: ReturnType<typeof parseEnv>; where: string }> {
  let env: ReturnType<typeof parseEnv>;
  try {
    env = parseEnv();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new CommandError(err.message, 2);
  }
  if (env.REDIS_URL === undefined) {
    throw new CommandError(`REDIS_URL is not set: the review queue lives in Redis.${opts.withoutRedis === undefined ? '' : ` ${opts.withoutRedis}`}`, 2);
  }
  // Checked: a database the server refuses must not read as database 0 (an empty queue, labels from elsewhere).
  const redis = new CheckedRedis(env.REDIS_URL, { maxRetriesPerRequest: 2, connectTimeout: 5_000, lazyConnect: false });
  // The ping's own error only says the retries ran out; the connection's last error says why (ECONNREFUSED, auth, ...).
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause = err));
  const url = new URL(env.REDIS_URL);
  try {
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    // The URL may hold a password: name the host only.
    throw new CommandError(`Cannot reach Redis at ${url.host} (REDIS_URL): ${(redis.databaseError ?? cause ?? (err as Error)).message}`, 2);
  }
  const where = `Redis ${url.host} db ${redis.options.db ?? 0}, prefix "${env.BULLMQ_PREFIX}"`;
  return { store: new ReviewStore(redis, { prefix: env.BULLMQ_PREFIX, retentionDays: env.REVIEW_RETENTION_DAYS }), redis, env, where };
}
