import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../service/review/browser.ts';
import { REDIS_URL } from '../support/redis.ts';
import { takeViolations } from '../support/unit-tier-guard.ts';

// This file is in the unit tier: its setup (test/support/unit-tier-guard.ts) must refuse what the tier has not got.
describe('the unit tier refuses Redis and browsers', () => {
  it('refuses a connection to the test Redis', async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    await expect(redis.connect()).rejects.toThrow(/unit tier has no Redis/);
    redis.disconnect();
    expect(takeViolations()).toEqual([expect.stringMatching(/^connected to Redis/)]);
  });

  it('refuses to start a redis-server', () => {
    expect(() => spawn('redis-server', ['--port', '0'])).toThrow(/unit tier has no Redis/);
    expect(takeViolations()).toEqual(['started redis-server']);
  });

  it('refuses to launch Chromium', async () => {
    await expect(launchChromium()).rejects.toThrow(/no browser/);
    expect(takeViolations()).toEqual([expect.stringMatching(/^started chrom/)]);
  });

  it('refuses to start a child pointed at Redis', () => {
    expect(() => spawn(process.execPath, ['-e', ''], { env: { REDIS_URL } })).toThrow(/unit tier/);
    expect(takeViolations()).toEqual(['started a child with REDIS_URL']);
  });
});
