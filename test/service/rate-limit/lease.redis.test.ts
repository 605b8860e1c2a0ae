import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../../service/rate-limit/redis.ts';
import type { RateDecision, RateRule } from '../../../service/rate-limit/types.ts';
import { REDIS_URL, useTestRedis } from '../../support/redis.ts';

// Leases: a limiter takes several hits of a busy key from Redis in one round trip and allows them without asking
// again. What must hold: no account past its limit across instances, one instance deciding as one exact counter would,
// and the round trips of a busy key falling to about one per lease.
const { redis, prefix } = useTestRedis('rl-lease');

/** A connection of the test's own whose script calls are counted (the limiter's round trips). */
function countedRedis(): { client: Redis; calls: () => number } {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let calls = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    if (command.name === 'evalsha') calls++;
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof client.sendCommand;
  return { client, calls: () => calls };
}

/** One hit of a key of no test, so the script is loaded in Redis and a test's count holds no NOSCRIPT retry. */
async function loadScript(rl: RedisRateLimiter): Promise<void> {
  await rl.hit('warm-up', { max: 1_000, windowMs: 60_000, algorithm: 'fixed' });
}

const counted: Redis[] = [];
afterAll(() => {
  for (const c of counted) c.disconnect();
});

function limiter(now: () => number, p: string, options: { maxLease?: number; client?: Redis } = {}): RedisRateLimiter {
  return new RedisRateLimiter(options.client ?? redis, {
    prefix: p,
    fallback: new MemoryRateLimiter({ now }),
    now,
    ...(options.maxLease === undefined ? {} : { maxLease: options.maxLease }),
  });
}

/** Small deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The start of a minute (and of every shorter window the tests use), so a test's hits fall where it means them to.
const T0 = 1_700_000_040_000;

describe('rate-limit leases (real Redis at TEST_REDIS_URL or 127.0.0.1:6379)', () => {
  it('two instances never allow together a hit that one exact counter would refuse, over limits, lease sizes and windows', async () => {
    const cases: Array<{ max: number; maxLease: number; algorithm: 'fixed' | 'sliding' }> = [];
    for (const max of [3, 17, 100, 400, 1500])
      for (const maxLease of [1, 4, 64]) for (const algorithm of ['fixed', 'sliding'] as const) cases.push({ max, maxLease, algorithm });
    let seed = 1;
    for (const { max, maxLease, algorithm } of cases) {
      const rule: RateRule = { max, windowMs: 2_000, algorithm };
      const rand = random(seed++);
      const clock = { t: T0 };
      const now = () => clock.t;
      const p = prefix();
      const a = limiter(now, p, { maxLease });
      const b = limiter(now, p, { maxLease });
      const allowedAt: number[] = [];
      // Two windows of hits at twice the limit's rate, fast enough for leases to grow, some arriving together.
      while (clock.t < T0 + 2 * rule.windowMs) {
        const batch = 1 + Math.floor(rand() * 6);
        const hits: Array<Promise<RateDecision>> = [];
        for (let i = 0; i < batch; i++) hits.push((rand() < 0.5 ? a : b).hit('acct:prop', rule));
        for (const d of await Promise.all(hits)) if (d.allowed) allowedAt.push(clock.t);
        clock.t += Math.round(rand() * (rule.windowMs / max) * batch);
      }
      // Every allowed hit, replayed in order into one exact counter, must be one it allows.
      const exact = new MemoryRateLimiter({ now });
      for (const t of allowedAt) {
        clock.t = t;
        expect((await exact.hit('acct:prop', rule)).allowed, `limit ${max}, lease ≤ ${maxLease}, ${algorithm}`).toBe(true);
      }
      // And the limit was reached: what was refused early is bounded, not everything.
      expect(allowedAt.length, `limit ${max}, lease ≤ ${maxLease}, ${algorithm}`).toBeGreaterThanOrEqual(max);
      await Promise.all([a.close(), b.close(), exact.close()]);
    }
  });

  it('a busy key with a high limit costs about one round trip per lease, not one per hit', async () => {
    const { client, calls } = countedRedis();
    counted.push(client);
    const clock = { t: T0 + 1_000 };
    const rl = limiter(() => clock.t, prefix(), { client });
    const rule: RateRule = { max: 1_000_000, windowMs: 60_000, algorithm: 'sliding' };
    // A hit a millisecond: 100 per 100 ms span, so leases reach their largest, 64.
    const run = async (hits: number) => {
      let allowed = 0;
      for (let i = 0; i < hits; i++) {
        if ((await rl.hit('acct:busy', rule)).allowed) allowed++;
        clock.t += 1;
      }
      return allowed;
    };
    expect(await run(1_000)).toBe(1_000);
    const before = calls();
    expect(await run(6_400)).toBe(6_400);
    const trips = calls() - before;
    expect(trips).toBeGreaterThanOrEqual(100);
    expect(trips).toBeLessThanOrEqual(102);
    await rl.close();
  });

  it('concurrent hits of one key at one instance wait for the round trip under way instead of each sending its own', async () => {
    const { client, calls } = countedRedis();
    counted.push(client);
    const clock = { t: T0 + 1_000 };
    const rl = limiter(() => clock.t, prefix(), { client });
    const rule: RateRule = { max: 1_000_000, windowMs: 60_000, algorithm: 'fixed' };
    // Warmed to a rate of 32 hits a span, then 32 at once: one round trip answers all of them.
    for (let span = 0; span < 3; span++) {
      await Promise.all(Array.from({ length: 32 }, () => rl.hit('acct:burst', rule)));
      clock.t += 100;
    }
    const before = calls();
    const decisions = await Promise.all(Array.from({ length: 32 }, () => rl.hit('acct:burst', rule)));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(calls() - before).toBe(1);
    await rl.close();
  });

  it('a quiet key asks Redis for every hit (a lease of 1), whatever its limit', async () => {
    const { client, calls } = countedRedis();
    counted.push(client);
    const clock = { t: T0 + 1_000 };
    const rl = limiter(() => clock.t, prefix(), { client });
    await loadScript(rl);
    const before = calls();
    const rule: RateRule = { max: 1_000_000, windowMs: 60_000, algorithm: 'fixed' };
    for (let i = 0; i < 40; i++) {
      expect((await rl.hit('acct:quiet', rule)).allowed).toBe(true);
      clock.t += 1_000;
    }
    expect(calls() - before).toBe(40);
    const keys = await redis.keys(`*{acct:quiet}*`);
    expect(keys).toHaveLength(1);
    // Counted in Redis: exactly the hits allowed, nothing held back.
    expect(Number(await redis.get(keys[0] as string))).toBe(40);
    await rl.close();
  });

  it('a limit of 3 a minute lets exactly 3 through two busy instances, one round trip a hit, each refusal until the window ends', async () => {
    const { client, calls } = countedRedis();
    counted.push(client);
    const clock = { t: T0 + 15_000 };
    const now = () => clock.t;
    const p = prefix();
    const a = limiter(now, p, { client });
    const b = limiter(now, p, { client });
    await loadScript(a);
    const before = calls();
    const rule: RateRule = { max: 3, windowMs: 60_000, algorithm: 'fixed' };
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 200; i++) {
      decisions.push(...(await Promise.all([a.hit('acct:small', rule), b.hit('acct:small', rule)])));
      clock.t += 1;
    }
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(calls() - before).toBe(400);
    // Refused 15.0-15.2 s into a minute's window (T0 starts one).
    expect(new Set(decisions.filter((d) => !d.allowed).map((d) => (d as { retryAfterSeconds: number }).retryAfterSeconds))).toEqual(
      new Set([45]),
    );
    await Promise.all([a.close(), b.close()]);
  });

  it('one instance decides as one exact counter would, Retry-After included, through a window it left with hits unused', async () => {
    const clock = { t: T0 };
    const now = () => clock.t;
    const rl = limiter(now, prefix());
    const exact = new MemoryRateLimiter({ now });
    const rule: RateRule = { max: 800, windowMs: 2_000, algorithm: 'sliding' };
    let refused = 0;
    // 667 hits in the first window (under the limit, leases of 12 running when it ends), then three times as fast.
    while (clock.t < T0 + 2 * rule.windowMs + 1_000) {
      const d = await rl.hit('acct:exact', rule);
      expect(d, `at ${clock.t - T0} ms`).toEqual(await exact.hit('acct:exact', rule));
      if (!d.allowed) refused++;
      clock.t += clock.t < T0 + rule.windowMs ? 3 : 1;
    }
    expect(refused).toBeGreaterThan(100);
    await Promise.all([rl.close(), exact.close()]);
  });

  it('a limit lowered while an instance holds leased hits takes effect at once: the hits held are dropped', async () => {
    const clock = { t: T0 + 1_000 };
    const rl = limiter(() => clock.t, prefix());
    const rule: RateRule = { max: 1_000, windowMs: 60_000, algorithm: 'fixed' };
    // 300 hits at a hit a millisecond: leases of 15 by now, some held.
    for (let i = 0; i < 300; i++) {
      expect((await rl.hit('acct:lowered', rule)).allowed).toBe(true);
      clock.t += 1;
    }
    const lowered: RateRule = { ...rule, max: 100 };
    expect(await rl.hit('acct:lowered', lowered)).toEqual({ allowed: false, retryAfterSeconds: 59 });
    await rl.close();
  });
});
