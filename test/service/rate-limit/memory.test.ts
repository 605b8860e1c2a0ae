import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import type { RateRule } from '../../../service/rate-limit/types.ts';

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

async function hits(limiter: MemoryRateLimiter, n: number, rule: RateRule, key = 'k') {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await limiter.hit(key, rule));
  return out;
}

describe('fixed window', () => {
  const rule: RateRule = { max: 3, windowMs: 10_000, algorithm: 'fixed' };

  it('allows max hits, then rejects with the seconds left in the window', async () => {
    const c = clock(1_000_000 + 2_500); // 2.5 s into a window
    const limiter = new MemoryRateLimiter({ now: c.now });
    const results = await hits(limiter, 4, rule);
    expect(results.slice(0, 3).every((r) => r.allowed)).toBe(true);
    expect(results[3]).toEqual({ allowed: false, retryAfterSeconds: 8 });
    await limiter.close();
  });

  it('starts afresh in the next window', async () => {
    const c = clock(1_000_000);
    const limiter = new MemoryRateLimiter({ now: c.now });
    await hits(limiter, 3, rule);
    expect((await limiter.hit('k', rule)).allowed).toBe(false);
    c.t += 10_000;
    expect((await limiter.hit('k', rule)).allowed).toBe(true);
    await limiter.close();
  });

  it('keeps keys apart', async () => {
    const limiter = new MemoryRateLimiter({ now: () => 5_000_000 });
    await hits(limiter, 3, rule, 'a');
    expect((await limiter.hit('a', rule)).allowed).toBe(false);
    expect((await limiter.hit('b', rule)).allowed).toBe(true);
    await limiter.close();
  });

  it('never answers a retry time under one second', async () => {
    const c = clock(1_000_000 + 9_999);
    const limiter = new MemoryRateLimiter({ now: c.now });
    const results = await hits(limiter, 4, rule);
    expect(results[3]).toEqual({ allowed: false, retryAfterSeconds: 1 });
    await limiter.close();
  });
});

describe('sliding window', () => {
  const rule: RateRule = { max: 10, windowMs: 10_000, algorithm: 'sliding' };

  it('counts the previous window by its overlap, so a burst at a boundary cannot double the limit', async () => {
    const c = clock(1_000_000 + 9_000);
    const limiter = new MemoryRateLimiter({ now: c.now });
    expect((await hits(limiter, 10, rule)).every((r) => r.allowed)).toBe(true);
    c.t += 1_000; // start of the next window: the previous 10 still weigh fully
    const next = await limiter.hit('k', rule);
    expect(next.allowed).toBe(false);
    // Half-way through, the previous window weighs 5: five more fit, the sixth does not.
    c.t += 5_000;
    const later = await hits(limiter, 6, rule);
    expect(later.filter((r) => r.allowed)).toHaveLength(5);
    expect(later[5]?.allowed).toBe(false);
    await limiter.close();
  });

  it('tells a retry time after which a hit is indeed allowed', async () => {
    const c = clock(2_000_000);
    const limiter = new MemoryRateLimiter({ now: c.now });
    await hits(limiter, 10, rule);
    c.t += 12_000;
    await hits(limiter, 3, rule);
    const rejected = await limiter.hit('k', rule);
    expect(rejected.allowed).toBe(false);
    if (rejected.allowed) return;
    c.t += (rejected.retryAfterSeconds - 1) * 1000;
    expect((await limiter.hit('k', rule)).allowed).toBe(false);
    c.t += 1000;
    expect((await limiter.hit('k', rule)).allowed).toBe(true);
    await limiter.close();
  });

  it('does not count rejected hits, so a client that keeps knocking is not locked out for ever', async () => {
    const c = clock(3_000_000);
    const limiter = new MemoryRateLimiter({ now: c.now });
    await hits(limiter, 40, rule);
    c.t += 20_000;
    expect((await limiter.hit('k', rule)).allowed).toBe(true);
    await limiter.close();
  });
});

describe('sweeping', () => {
  it('forgets keys idle for more than a window', async () => {
    const c = clock(1_000_000);
    const limiter = new MemoryRateLimiter({ now: c.now });
    await limiter.hit('idle', { max: 5, windowMs: 1000, algorithm: 'fixed' });
    expect(limiter.size).toBe(1);
    c.t += 5000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
    await limiter.close();
  });
});
