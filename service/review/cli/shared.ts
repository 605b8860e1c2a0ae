import { Redis } from 'ioredis';
import { parseEnv } from '../../config/env.ts';
import { ReviewStore } from '../store.ts';

/** The review store of REDIS_URL, for the terminal tools (they talk to Redis directly). */
export function openStore(): { store: ReviewStore; redis: Redis; env: ReturnType<typeof parseEnv> } {
  const env = parseEnv();
  if (env.REDIS_URL === undefined) {
    console.error('REDIS_URL is not set: the review queue lives in Redis.');
    process.exit(2);
  }
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 2, connectTimeout: 5_000, lazyConnect: false });
  redis.on('error', () => undefined);
  return { store: new ReviewStore(redis, { prefix: env.BULLMQ_PREFIX, retentionDays: env.REVIEW_RETENTION_DAYS }), redis, env };
}
