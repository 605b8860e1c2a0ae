import { CommandError } from '../../core/cli/usage.ts';
import { ConfigError, parseEnv } from '../../service/config/env.ts';
import { CheckedRedis } from '../../service/config/redis.ts';
import { describeRedis, openRedis, redisTarget, type RedisClient } from '../../service/config/redis-target.ts';
import { ReviewStore } from '../../service/review/store/review-store.ts';

/**
 * The review store of REDIS_URL (or REDIS_CLUSTER_NODES), for the terminal tools (they talk to Redis directly); a
 * CommandError (exit 2) when it cannot be reached or neither is set (`withoutRedis` then says what else the tool can
 * do). `where` names the database and key prefix (never the password): an empty answer from the wrong one must not
 * read as "nothing to do".
 */
export async function openStore(
  opts: { withoutRedis?: string } = {},
): Promise<{ store: ReviewStore; redis: RedisClient; env: ReturnType<typeof parseEnv>; where: string }> {
  let env: ReturnType<typeof parseEnv>;
  try {
    env = parseEnv();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new CommandError(err.message, 2);
  }
  const target = redisTarget(env);
  if (target === undefined) {
    throw new CommandError(
      `REDIS_URL is not set: the review queue lives in Redis.${opts.withoutRedis === undefined ? '' : ` ${opts.withoutRedis}`}`,
      2,
    );
  }
  // Checked: a database the server refuses must not read as database 0 (an empty queue, labels from elsewhere).
  const redis = openRedis(target, { maxRetriesPerRequest: 2, connectTimeout: 5_000, lazyConnect: false });
  // The ping's own error only says the retries ran out; the connection's last error says why (ECONNREFUSED, auth, ...).
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause = err));
  const refused = (): Error | undefined => (redis instanceof CheckedRedis ? redis.databaseError : undefined);
  // The URL may hold a password: hosts only.
  const name = describeRedis(target);
  try {
    // A cluster answers once it has its slot map: a ping before that is refused without the offline queue.
    if (target.kind === 'cluster') await whenReady(redis, 5_000, () => cause);
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const variable = target.kind === 'server' ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES';
    throw new CommandError(
      `Cannot reach ${name.replace(/^Redis /, 'Redis at ')} (${variable}): ${(refused() ?? cause ?? (err as Error)).message}`,
      2,
    );
  }
  const where = `${name}${redis instanceof CheckedRedis ? ` db ${redis.options.db ?? 0}` : ''}, prefix "${env.BULLMQ_PREFIX}"`;
  return { store: new ReviewStore(redis, { prefix: env.BULLMQ_PREFIX, retentionDays: env.REVIEW_RETENTION_DAYS }), redis, env, where };
}

/** Resolves once the client is ready; rejects after `ms` with its last error. */
function whenReady(redis: RedisClient, ms: number, lastError: () => Error | undefined): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(lastError() ?? new Error(`no answer within ${ms} ms`)), ms);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
