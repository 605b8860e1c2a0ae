import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { composeService, type Service } from '../../service/compose.ts';
import { parseEnv } from '../../service/config/env.ts';
import { ServingFollower } from '../../service/models/serving-follower.ts';
import { MemoryRateLimiter } from '../../service/rate-limit/memory.ts';
import { TenantsStore } from '../../service/tenants/store.ts';
import { silent } from '../support/logs.ts';
import { tempDir } from '../support/temp-dir.ts';
import { tenantsFile } from '../support/tenants.ts';
import { ORIGIN, verifyBody } from './helpers.ts';

// What service/server.ts runs, built without listening: the environment's defaults, the bundled model, no Redis.
let service: Service;
let tenants: TenantsStore;
let serving: ServingFollower;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir('compose');
  const file = path.join(dir.dir, 'tenants.json');
  await writeFile(file, JSON.stringify(tenantsFile()));
  tenants = await TenantsStore.open(file, silent);
  serving = new ServingFollower({ modelsDir: path.join(repoRoot, 'models'), log: silent });
  service = await composeService({ env: parseEnv({}), log: silent, tenants, serving });
  await serving.slot.loaded;
});

afterAll(async () => {
  await service?.admin?.close();
  await service?.app.close();
  tenants?.close();
  serving?.stop();
  await dir?.remove();
});

describe('composeService without Redis', () => {
  it('answers a verify request with the served model, limits counted in memory and no review queue', async () => {
    const res = await service.app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ modelVersion: string }>().modelVersion).toBe((await serving.slot.loaded).modelVersion);
    expect(service.rateLimiter).toBeInstanceOf(MemoryRateLimiter);
    expect([service.review, service.breaker, service.watch, service.heartbeat]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('serves /metrics on the admin app (ADMIN_PORT defaults to on), with the Redis metrics at zero', async () => {
    const res = await service.admin!.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('formguard_redis_breaker_openings_total 0');
    expect(res.body).toContain('formguard_rate_limit_restored_total 0');
    expect((await service.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });
});
