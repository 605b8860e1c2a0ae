import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { composeService, type Service } from '../../service/compose.ts';
import { parseEnv } from '../../service/config/env.ts';
import { ServingFollower } from '../../service/models/serving-follower.ts';
import { RedisRateLimiter } from '../../service/rate-limit/redis.ts';
import { TenantsStore } from '../../service/tenants/store.ts';
import { silent } from '../support/logs.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../support/redis.ts';
import { tempDir } from '../support/temp-dir.ts';
import { tenantsFile } from '../support/tenants.ts';
import { ORIGIN, verifyBody } from './helpers.ts';

// What service/server.ts runs in Redis mode, built around a Redis connection and a clock the test owns: the limit
// is counted in Redis, and a window passes when the test moves the clock, not when the test waits.
const prefix = testPrefix('compose');
let service: Service;
let redis: Redis;
let tenants: TenantsStore;
let serving: ServingFollower;
let dir: Awaited<ReturnType<typeof tempDir>>;
let clock = Date.UTC(2026, 10, 28, 12, 0, 0);

beforeAll(async () => {
  dir = await tempDir('compose-redis');
  const file = path.join(dir.dir, 'tenants.json');
  await writeFile(file, JSON.stringify(tenantsFile({ rateLimit: { max: 3, windowSeconds: 60, algorithm: 'fixed' } })));
  tenants = await TenantsStore.open(file, silent);
  serving = new ServingFollower({ modelsDir: path.join(repoRoot, 'models'), log: silent });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const env = parseEnv({
    REDIS_URL,
    RATE_LIMIT_PREFIX: `${prefix}:rl`,
    BULLMQ_PREFIX: `${prefix}:q`,
    SHADOW_PREFIX: `${prefix}:shadow`,
    REVIEW_SPOOL_DIR: path.join(dir.dir, 'spool'),
    ADMIN_PORT: 'off',
  });
  service = await composeService({
    env,
    log: silent,
    tenants,
    serving,
    redis: { client: redis, target: { kind: 'server', url: REDIS_URL } },
    now: () => clock,
  });
  await serving.slot.loaded;
});

afterAll(async () => {
  service?.watch?.close();
  await service?.app.close();
  await service?.review?.close(Date.now() + 5000);
  await service?.rateLimiter.close();
  await service?.heartbeat?.close();
  service?.breaker?.close();
  tenants?.close();
  serving?.stop();
  if (redis !== undefined) {
    await deleteKeys(redis, prefix);
    await redis.quit();
  }
  await dir?.remove();
});

describe('composeService with an injected Redis and clock', () => {
  it('counts the account limit in Redis, and lets the next request in once the injected clock passes the window', async () => {
    expect(service.rateLimiter).toBeInstanceOf(RedisRateLimiter);
    const send = () => service.app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    const first = [await send(), await send(), await send()].map((r) => r.statusCode);
    expect(first).toEqual([200, 200, 200]);
    expect((await send()).statusCode).toBe(429);
    expect((await redis.keys(`${prefix}:rl*`)).length).toBeGreaterThan(0);
    clock += 60_000;
    expect((await send()).statusCode).toBe(200);
  });
});
