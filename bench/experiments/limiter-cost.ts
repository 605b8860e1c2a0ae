// npx tsx bench/experiments/limiter-cost.ts [--hits N] [--rounds R]
// What the rate limiter itself costs a request, in process and without HTTP: one busy key with a high limit (the
// bench account's, 1e9 a minute, sliding) hit back to back, by the in-memory limiter (embedded mode), by the Redis
// limiter with its leases, and by the Redis limiter with leases of 1 (a round trip a hit, as before), in turn by round. Per hit: CPU of this process (the round trips' share included) and
// wall time. Redis: BENCH_REDIS_URL or 127.0.0.1:6379, under a key prefix of its own, deleted at the end.
import os from 'node:os';
import { Redis } from 'ioredis';
import { MemoryRateLimiter } from '../../service/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../service/rate-limit/redis.ts';
import type { RateLimiter, RateRule } from '../../service/rate-limit/types.ts';
import { deleteMatching } from '../lib/redis-keys.ts';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
const hits = opt('--hits', 300_000);
const rounds = opt('--rounds', 3);
const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `fgbench-limiter-cost-${process.pid}`;
const rule: RateRule = { max: 1_000_000_000, windowMs: 60_000, algorithm: 'sliding' };
const limiters: Record<string, RateLimiter> = {
  memory: new MemoryRateLimiter(),
  'redis, leases': new RedisRateLimiter(redis, { prefix, fallback: new MemoryRateLimiter() }),
  // maxLease 1: a round trip every hit, as before leases.
  'redis, per hit': new RedisRateLimiter(redis, { prefix, fallback: new MemoryRateLimiter(), maxLease: 1 }),
};

async function round(name: string, limiter: RateLimiter): Promise<void> {
  // Warm: the key's rate measured and its lease at full size before counting.
  for (let i = 0; i < 20_000; i++) await limiter.hit('acct:bench', rule);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < hits; i++) await limiter.hit('acct:bench', rule);
  const cpu = process.cpuUsage(cpu0);
  const wallUs = (performance.now() - t0) * 1000;
  const load = (os.loadavg()[0] as number).toFixed(1);
  process.stdout.write(
    `${name.padEnd(14)} ${((cpu.user + cpu.system) / hits).toFixed(2)} µs CPU/hit, ${(wallUs / hits).toFixed(2)} µs wall/hit (load ${load})\n`,
  );
}

try {
  for (let r = 0; r < rounds; r++) for (const [name, limiter] of Object.entries(limiters)) await round(name, limiter);
} finally {
  await deleteMatching(redis, `${prefix}:*`);
  for (const limiter of Object.values(limiters)) await limiter.close();
  redis.disconnect();
}
