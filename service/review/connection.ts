import type { Logger } from 'pino';
import { CheckedRedis } from '../config/redis.ts';
import { openRedis, type RedisClient, type RedisTarget } from '../config/redis-target.ts';

/**
 * The command connection for the producer, the store and console sessions: it fails fast
 * (no offline queue, one retry) so a Redis outage never holds up a caller; the sink spools instead.
 */
export function commandConnection(target: RedisTarget, log: Logger, name = 'formguard-review'): RedisClient {
  const redis = openRedis(target, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryDelayMs: (attempt) => Math.min(attempt * 200, 2_000),
  });
  logConnectionState(redis, log, name);
  return redis;
}

/** The ingest worker's connection: BullMQ workers need maxRetriesPerRequest null (blocking commands). */
export function workerConnection(target: RedisTarget, log: Logger, name = 'formguard-review-worker'): RedisClient {
  const redis = openRedis(target, {
    connectionName: name,
    maxRetriesPerRequest: null,
    connectTimeout: 2_000,
    retryDelayMs: (attempt) => Math.min(attempt * 200, 2_000),
  });
  logConnectionState(redis, log, name);
  return redis;
}

/** Logs a lost and a regained connection once each, not every reconnect attempt. */
function logConnectionState(redis: RedisClient, log: Logger, name: string): void {
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    const refused = redis instanceof CheckedRedis ? redis.databaseError : undefined;
    log.warn(
      { connection: name, err: refused?.message ?? err.message },
      'review: Redis unreachable; flagged submissions go to the local spool',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ connection: name }, 'review: Redis reachable again');
  });
}
