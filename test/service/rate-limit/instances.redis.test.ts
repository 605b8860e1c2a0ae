import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { InstanceHeartbeat } from '../../../service/rate-limit/instances.ts';
import { REDIS_URL } from '../../support/redis.ts';

const prefix = `fgtest-instances-${randomBytes(4).toString('hex')}`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });

afterAll(async () => {
  await redis.del(`${prefix}:instances`);
  redis.disconnect();
});

describe('InstanceHeartbeat', () => {
  it('counts the instances that beat within 15 s, and drops one that leaves or goes quiet', async () => {
    let t = 1_700_000_000_000;
    const now = () => t;
    const a = new InstanceHeartbeat(redis, prefix, { now, beatMs: 3_600_000 });
    const b = new InstanceHeartbeat(redis, prefix, { now, beatMs: 3_600_000 });
    const c = new InstanceHeartbeat(redis, prefix, { now, beatMs: 3_600_000 });
    await Promise.all([a.beat(), b.beat(), c.beat()]);
    await a.beat();
    expect(a.live).toBe(3);
    await c.close();
    await a.beat();
    expect(a.live).toBe(2);
    // b goes quiet for 20 s: gone.
    t += 20_000;
    await a.beat();
    expect(a.live).toBe(1);
    await b.beat();
    await a.beat();
    expect(a.live).toBe(2);
    await Promise.all([a.close(), b.close()]);
  });
});
