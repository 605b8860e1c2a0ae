import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Redis } from 'ioredis';
import { ConfigError, parseEnv } from '../../config/env.ts';
import { CheckedRedis } from '../../config/redis.ts';
import { ReviewStore } from '../store/review-store.ts';

/** A terminal tool's arguments; a bad one prints its message and the usage (exit 2), never a stack trace. */
export function parseCliArgs<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    return usageError((err as Error).message, usage);
  }
}

/** Terminal-safe text: attacker-written fields must not drive the terminal (no escape sequences). */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
}

export function usageError(message: string, usage: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

/**
 * The review store of REDIS_URL, for the terminal tools (they talk to Redis directly); exits 2 when it cannot be
 * reached or REDIS_URL is unset (`withoutRedis` then says what else the tool can do). `where` names the database and
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
    console.error(err.message);
    process.exit(2);
  }
  if (env.REDIS_URL === undefined) {
    console.error(`REDIS_URL is not set: the review queue lives in Redis.${opts.withoutRedis === undefined ? '' : ` ${opts.withoutRedis}`}`);
    process.exit(2);
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
    console.error(`Cannot reach Redis at ${url.host} (REDIS_URL): ${(redis.databaseError ?? cause ?? (err as Error)).message}`);
    process.exit(2);
  }
  const where = `Redis ${url.host} db ${redis.options.db ?? 0}, prefix "${env.BULLMQ_PREFIX}"`;
  return { store: new ReviewStore(redis, { prefix: env.BULLMQ_PREFIX, retentionDays: env.REVIEW_RETENTION_DAYS }), redis, env, where };
}
