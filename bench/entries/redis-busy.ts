// npm run bench:redis-busy [-- --seconds 20] [-- --nice]
// A healthy Redis of this script's own under the service's full closed-loop load (50 connections, the realistic
// bodies, every verdict flagged for review so the queue adds run too): the circuit breaker must not open. Counts
// openings from formguard_redis_breaker_openings_total on the admin port, with the run's req/s and latency, and what
// made Redis slow if anything did: its SLOWLOG (calls over 10 ms) and LATENCY LATEST (events over 20 ms).
// --nice: the service and this process (the load generator) run at nice 10, Redis at the default 0, so Redis is not
// the one taken off the CPU when the three share the cores (as when Redis has a core of its own in production).
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { realisticBodies } from '../lib/bodies.ts';
import { load } from '../lib/load.ts';
import { freePort, startRedisServer, startServer, stopServer } from '../lib/processes.ts';
import { benchServiceEnv, writeBenchTenants } from '../lib/tenants.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--seconds');
const seconds = Number(at >= 0 ? args[at + 1] : '20');
const nice = args.includes('--nice');
const repoRoot = path.resolve(import.meta.dirname, '..', '..');

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-redis-busy-'));
  const redis = await startRedisServer(tmp, ['--slowlog-log-slower-than', '10000', '--latency-monitor-threshold', '20']);
  const redisPort = redis.port;
  const probe = new Redis(redis.url);
  try {
    execSync('npm run build --silent', { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    const port = await freePort();
    const adminPort = await freePort();
    const server = await startServer({
      name: 'verify',
      entry: 'dist/server.js',
      cwd: repoRoot,
      env: {
        ...benchServiceEnv(port, writeBenchTenants(tmp), {
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          REVIEW_SPOOL_DIR: path.join(tmp, 'spool'),
          REVIEW_BAND: '1',
          REVIEW_SAMPLE_RATE: '1',
        }),
        ADMIN_PORT: String(adminPort),
      },
      port,
      readyPath: '/readyz',
      stderrFile: path.join(tmp, 'verify.stderr'),
      stdoutFile: path.join(tmp, 'verify.log'),
    });
    if (nice) {
      os.setPriority(server.pid, 10);
      os.setPriority(10);
    }
    let result;
    let metrics = '';
    try {
      result = await load({ target: 'verify (Redis mode)', url: server.url, bodies: realisticBodies(repoRoot), durationS: seconds });
      metrics = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
    } finally {
      await stopServer(server);
    }
    const slowlog = (await probe.call('SLOWLOG', 'GET', '20')) as [number, number, number, string[]][];
    const latency = (await probe.call('LATENCY', 'LATEST')) as [string, number, number, number][];
    const slowCalls = slowlog.map(([, , micros, command]) => ({
      ms: Math.round(micros / 100) / 10,
      command: command
        .slice(0, 3)
        .map((a) => a.slice(0, 40))
        .join(' '),
    }));
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    const line = {
      date: new Date().toISOString(),
      seconds,
      nice,
      loadAverageBefore: os.loadavg().map((l) => l.toFixed(2)),
      reqPerSec: Math.round(result.reqPerSec),
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      non2xx: result.non2xx,
      breakerOpenings: value('formguard_redis_breaker_openings_total'),
      reviewQueued: value('formguard_review_queued_total'),
      reviewSpooled: value('formguard_review_spooled_total'),
      slowlogOver10Ms: slowCalls.length,
      slowCalls,
      // Why the breaker opened, as the service logged it (its warn lines carry the reason).
      openReasons: readFileSync(path.join(tmp, 'verify.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('circuit open'))
        .map((l) => String((JSON.parse(l) as { reason?: unknown }).reason))
        .slice(0, 10),
      latencyEvents: latency.map(([event, , latestMs, maxMs]) => ({ event, latestMs, maxMs })),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    const dir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `redis-busy-${line.date.replace(/[:]/g, '-').replace(/\..*$/, '')}.json`);
    writeFileSync(file, `${JSON.stringify(line, null, 2)}\n`);
    process.stdout.write(`written: ${path.relative(repoRoot, file)}\n`);
  } finally {
    probe.disconnect();
    await redis.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
