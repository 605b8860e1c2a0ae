import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Fail fast: a rate-limit check must not wait for a reconnect (the limiter falls back to memory instead). */
export function createRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 500,
    lazyConnect: false,
  });
  let lastWarn = 0;
  redis.on('error', (err: Error) => {
    // Reconnect attempts repeat the same error; one line per 10 s is enough.
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    log.warn({ err: { message: err.message } }, 'redis connection error');
  });
  return redis;
}
