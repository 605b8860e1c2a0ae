// npm run bench:redis-hang [-- --hang-seconds 10] [-- --rate 100]
// A Redis of this script's own (redis-server on a free loopback port) is hung with SIGSTOP for 10 s while the service
// (dist/server.js, REDIS_URL set) takes 100 verify requests a second (open loop: one every 10 ms, whatever the
// answers do). Once with the breaker in effect off (each call waits its 500 ms timeout, as before the breaker), once
// with the defaults (the admission limit is off in the first, as before it existed). Prints the latency of the
// requests sent during the hang, and of those sent in the 2 s before it.
import { benchServiceEnv, writeBenchTenants } from '../lib/tenants.ts';
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ORIGIN, realisticBodies } from '../lib/bodies.ts';
import { percentile } from '../lib/load.ts';
import { freePort, startRedisServer, startServer, stopServer } from '../lib/processes.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
const hangS = Number(flag('hang-seconds', '10'));
const rate = Number(flag('rate', '100'));
const repoRoot = path.resolve(import.meta.dirname, '..', '..');

const CONFIGS: { name: string; env: Record<string, string> }[] = [
  {
    name: 'before (no breaker: each call waits 500 ms)',
    env: { REDIS_BREAKER_FAILURES: '1000000000', REDIS_BREAKER_TIMEOUT_MS: '500', MAX_VERIFY_IN_FLIGHT: '0' },
  },
  { name: 'after (defaults)', env: {} },
];

async function runOne(name: string, env: Record<string, string>, tmp: string, tenantsFile: string, bodies: string[]) {
  const redis = await startRedisServer(tmp);
  const port = await freePort();
  const server = await startServer({
    name: 'verify',
    entry: 'dist/server.js',
    cwd: repoRoot,
    env: benchServiceEnv(port, tenantsFile, { REDIS_URL: redis.url, REVIEW_SPOOL_DIR: path.join(tmp, `spool-${port}`), ...env }),
    port,
    readyPath: '/readyz',
    stderrFile: path.join(tmp, 'verify.stderr'),
  });
  const during: number[] = [];
  /** Hang-window requests over 20 ms: when they were sent (ms after the hang began) and how long they took. */
  const slow: Array<{ sentAtMs: number; ms: number }> = [];
  let hangStart = 0;
  const beforeHang: number[] = [];
  const all: number[] = [];
  let failed = 0;
  let hung = false;
  try {
    const pending: Promise<void>[] = [];
    const totalMs = (hangS + 4) * 1000;
    const t0 = Date.now();
    let i = 0;
    // Open loop: requests go out on the clock, whatever the answers do, as independent callers' would.
    while (Date.now() - t0 < totalMs) {
      const elapsed = Date.now() - t0;
      if (!hung && elapsed >= 2000 && elapsed < 2000 + hangS * 1000) {
        process.kill(redis.pid, 'SIGSTOP');
        hung = true;
        hangStart = performance.now();
      } else if (hung && elapsed >= 2000 + hangS * 1000) {
        process.kill(redis.pid, 'SIGCONT');
        hung = false;
      }
      const inHang = hung;
      const preHang = Date.now() - t0 < 2000;
      const body = bodies[i++ % bodies.length] as string;
      const start = performance.now();
      pending.push(
        fetch(`http://127.0.0.1:${port}/v1/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
          body,
        }).then(
          async (r) => {
            await r.arrayBuffer();
            const ms = performance.now() - start;
            if (r.status !== 200) failed++;
            all.push(ms);
            if (inHang) during.push(ms);
            if (inHang && ms > 20) slow.push({ sentAtMs: Math.round(start - hangStart), ms: Math.round(ms) });
            if (preHang) beforeHang.push(ms);
          },
          () => {
            failed++;
          },
        ),
      );
      const next = t0 + i * (1000 / rate);
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    if (hung) process.kill(redis.pid, 'SIGCONT');
    await Promise.all(pending);
  } finally {
    await stopServer(server);
    await redis.stop();
  }
  const d = [...during].sort((a, b) => a - b);
  const b = [...beforeHang].sort((x, y) => x - y);
  const r2 = (x: number) => Math.round(x * 10) / 10;
  // The same run's latency before the hang: on a shared machine, the floor the hang figures are to be read against.
  return {
    name,
    requests: all.length,
    non200: failed,
    preHangP50Ms: r2(percentile(b, 50)),
    preHangP99Ms: r2(percentile(b, 99)),
    duringHang: d.length,
    hangP50Ms: r2(percentile(d, 50)),
    hangP99Ms: r2(percentile(d, 99)),
    hangMaxMs: r2(d.at(-1) ?? NaN),
    slowerThan20Ms: d.filter((x) => x > 20).length,
    slow: slow.sort((x, y) => x.sentAtMs - y.sentAtMs),
  };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-redis-hang-'));
  try {
    const tenantsFile = writeBenchTenants(tmp);
    execSync('npm run build --silent', { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    const bodies = realisticBodies(repoRoot).map((b) => b.json);
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    process.stdout.write(`redis hang: ${rate} req/s, ${hangS} s SIGSTOP, load average before ${load}\n`);
    const results = [];
    for (const c of CONFIGS) {
      const r = await runOne(c.name, c.env, tmp, tenantsFile, bodies);
      process.stdout.write(`${JSON.stringify(r)}\n`);
      results.push(r);
    }
    const dir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `redis-hang-${new Date().toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}.json`);
    writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), rate, hangS, loadAverageBefore: load, results }, null, 2)}\n`);
    process.stdout.write(`written: ${path.relative(repoRoot, file)}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
