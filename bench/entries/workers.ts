// npm run bench -- --workers N [--quick]: the service with WORKERS=1..N under the same load generator, each round
// against the bare Fastify route of the same round; the ratios are the figures (the host is shared).
import { writeBenchTenants } from '../lib/tenants.ts';
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { realisticBodies } from '../lib/bodies.ts';
import { CONNECTIONS, load, median, type LoadResult } from '../lib/load.ts';
import { freePort, startServer, stopServer, type Started } from '../lib/processes.ts';
import { deleteMatching } from '../lib/redis-keys.ts';

export interface WorkersReport {
  readonly date: string;
  readonly quick: boolean;
  readonly machine: {
    readonly nproc: number;
    readonly availableParallelism: number;
    readonly loadAverage: readonly number[];
    readonly commit: string;
  };
  readonly redis: boolean;
  readonly rounds: number;
  readonly durationS: number;
  readonly connections: number;
  readonly rows: readonly {
    readonly workers: number;
    readonly rounds: readonly number[];
    readonly reqPerSec: number;
    readonly p99Ms: number;
    /** Median over rounds of (this target's req/s / the bare route's req/s in the same round). */
    readonly ofBare: number;
    /** Median over rounds of (req/s / WORKERS=1's req/s in the same round). */
    readonly ofOneWorker: number;
    readonly non2xx: number;
  }[];
  readonly bare: { readonly rounds: readonly number[]; readonly reqPerSec: number };
}

/** Children of `pid` that run the service: a WORKERS=n primary's workers. */
function serviceChildren(pid: number): number {
  try {
    return execFileSync('ps', ['-o', 'args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('server.js')).length;
  } catch {
    return 0;
  }
}

/** Every worker listens and has its model: n children, and /readyz 200 on fresh connections several times in a row (each goes to the next worker). */
async function allWorkersReady(s: Started, n: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  let streak = 0;
  while (streak < 4 * n) {
    if (Date.now() > deadline) throw new Error(`${s.name}: not all ${n} workers ready after 60 s`);
    const ok =
      (n === 1 || serviceChildren(s.pid) === n) &&
      (await fetch(`${s.url}/readyz`, { headers: { connection: 'close' } }).then(
        (r) => r.status === 200,
        () => false,
      ));
    streak = ok ? streak + 1 : 0;
    if (!ok) await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runWorkersBench(maxWorkers: number, quick: boolean, log: (msg: string) => void): Promise<WorkersReport> {
  const repoRoot = path.resolve(import.meta.dirname, '..', '..');
  const cfg = quick ? { rounds: 2, durationS: 3, warmS: 1 } : { rounds: 5, durationS: 6, warmS: 2 };
  const started = new Date();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-bench-workers-'));
  const tenantsFile = writeBenchTenants(tmp);
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const runId = `fgbench-workers-${process.pid}-${Date.now().toString(36)}`;
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => undefined);
  const redis = await probe.connect().then(
    () => probe.ping().then(() => true),
    () => false,
  );
  // Every row runs the same configuration: Redis when it answers (what WORKERS > 1 is for), else per-worker limits.
  if (!redis) log(`Redis at ${redisUrl} does not answer: every row counts limits per worker (ALLOW_PER_WORKER_LIMITS=true)`);
  const env = (port: number, workers: number): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PORT: '0',
    TENANTS_FILE: tenantsFile,
    WORKERS: String(workers),
    ...(redis
      ? {
          REDIS_URL: redisUrl,
          BULLMQ_PREFIX: runId,
          RATE_LIMIT_PREFIX: `${runId}:rl`,
          REVIEW_SPOOL_DIR: path.join(tmp, `spool-${workers}`),
        }
      : { ALLOW_PER_WORKER_LIMITS: 'true' }),
  });

  const servers: Started[] = [];
  const bodies = realisticBodies(repoRoot);
  try {
    execSync('npm run build --silent', { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    const barePort = await freePort();
    servers.push(
      await startServer({
        name: 'bare',
        entry: 'bench/children/bare-server.ts',
        cwd: repoRoot,
        env: { PATH: process.env.PATH, PORT: String(barePort) },
        port: barePort,
        readyPath: '/readyz',
        stderrFile: path.join(tmp, 'bare.stderr'),
      }),
    );
    for (let w = 1; w <= maxWorkers; w++) {
      const port = await freePort();
      const s = await startServer({
        name: `workers-${w}`,
        entry: 'dist/server.js',
        cwd: repoRoot,
        env: env(port, w),
        port,
        readyPath: '/readyz',
        stderrFile: path.join(tmp, `workers-${w}.stderr`),
        timeoutMs: 60_000,
      });
      servers.push(s);
      await allWorkersReady(s, w);
      log(`WORKERS=${w} ready (${s.readyMs.toFixed(0)} ms to the first worker)`);
    }
    for (const s of servers) await load({ target: s.name, url: s.url, bodies, durationS: cfg.warmS });
    const results: LoadResult[] = [];
    for (let r = 0; r < cfg.rounds; r++) {
      for (const s of servers) {
        const res = await load({ target: s.name, url: s.url, bodies, durationS: cfg.durationS });
        results.push(res);
        log(
          `round ${r + 1}/${cfg.rounds} ${s.name.padEnd(10)} ${res.reqPerSec.toFixed(0).padStart(6)} req/s  p99 ${res.p99Ms} ms  non2xx ${res.non2xx} err ${res.errors}`,
        );
      }
    }
    const of = (name: string) => results.filter((x) => x.target === name);
    const bare = of('bare');
    const one = of('workers-1');
    const ratio = (xs: LoadResult[], base: LoadResult[]) => median(xs.map((x, i) => x.reqPerSec / (base[i] as LoadResult).reqPerSec));
    return {
      date: started.toISOString(),
      quick,
      machine: {
        nproc: os.cpus().length,
        availableParallelism: os.availableParallelism(),
        loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
        commit: execSync('git rev-parse --short HEAD', { cwd: repoRoot, encoding: 'utf8' }).trim(),
      },
      redis,
      rounds: cfg.rounds,
      durationS: cfg.durationS,
      connections: CONNECTIONS,
      bare: { rounds: bare.map((x) => x.reqPerSec), reqPerSec: median(bare.map((x) => x.reqPerSec)) },
      rows: Array.from({ length: maxWorkers }, (_, i) => {
        const rs = of(`workers-${i + 1}`);
        return {
          workers: i + 1,
          rounds: rs.map((x) => x.reqPerSec),
          reqPerSec: median(rs.map((x) => x.reqPerSec)),
          p99Ms: median(rs.map((x) => x.p99Ms)),
          ofBare: ratio(rs, bare),
          ofOneWorker: ratio(rs, one),
          non2xx: rs.reduce((n, x) => n + x.non2xx, 0),
        };
      }),
    };
  } finally {
    for (const s of servers.reverse()) await stopServer(s);
    if (redis) await deleteMatching(probe, `*${runId}*`);
    probe.disconnect();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function renderWorkersMarkdown(r: WorkersReport): string {
  const lines = [
    `# WORKERS scan (${r.date}${r.quick ? ', quick' : ''})`,
    '',
    `${r.machine.nproc} cores (${r.machine.availableParallelism} available to Node), load average ${r.machine.loadAverage.join(' ')} at the end, commit ${r.machine.commit}; ` +
      `${r.rounds} rounds × ${r.durationS} s, ${r.connections} connections, the load generator (autocannon) in the bench process on the same cores; limits ${r.redis ? 'in Redis' : 'per worker'}.`,
    '',
    '| WORKERS | req/s (median) | p99 ms | × bare route | × WORKERS=1 | non-2xx |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.rows.map(
      (x) =>
        `| ${x.workers} | ${x.reqPerSec.toFixed(0)} | ${x.p99Ms} | ${(100 * x.ofBare).toFixed(1)}% | ${x.ofOneWorker.toFixed(2)} | ${x.non2xx} |`,
    ),
    `| bare route | ${r.bare.reqPerSec.toFixed(0)} | | 100% | | |`,
  ];
  return lines.join('\n');
}

export function writeWorkersResult(r: WorkersReport): string {
  const repoRoot = path.resolve(import.meta.dirname, '..', '..');
  const dir = path.join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${r.date.replace(/[:]/g, '-').replace(/\..*$/, '')}-workers${r.quick ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(r, null, 2) + '\n');
  return path.relative(repoRoot, file);
}
