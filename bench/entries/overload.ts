// npm run bench:overload [-- --quick] [-- --seconds 20] [-- --connections 400] [-- --only after] [-- --set MAX_VERIFY_IN_FLIGHT=16]
// Overload: many connections sending large bodies to /v1/verify (closed loop: each connection sends its next request
// as soon as the last is answered) while a prober opens a fresh connection to /healthz every 100 ms, once with
// shedding off (the settings before shedding existed) and once with the service's defaults. Prints both; the
// machine is 2 shared cores, so the two runs are compared with each other, not with other days.
import { benchServiceEnv, writeBenchTenants } from '../lib/tenants.ts';
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { BENCH_ORIGIN, worstCaseBody } from '../lib/bodies.ts';
import { percentile } from '../lib/load.ts';
import { freePort, startServer, stopServer } from '../lib/processes.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
const quick = args.includes('--quick');
const seconds = Number(flag('seconds', quick ? '5' : '20'));
const connections = Number(flag('connections', '400'));
const bodyBytes = Number(flag('body-bytes', String(63 * 1024)));
const only = flag('only', '');
const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The two configurations: shedding off as it was (only a 1 s event-loop delay check), and the defaults. */
const CONFIGS: { name: string; env: NodeJS.ProcessEnv }[] = [
  { name: 'before (unshed)', env: { MAX_EVENT_LOOP_DELAY_MS: '1000', MAX_EVENT_LOOP_UTILIZATION: '0', MAX_VERIFY_IN_FLIGHT: '0' } },
  { name: 'after (defaults)', env: {} },
];
// --set NAME=VALUE (repeatable): a setting for the "after" run, to try other values than the defaults.
for (let i = 0; i < args.length; i++) {
  const m = args[i] === '--set' ? /^([A-Z_]+)=(.*)$/.exec(args[i + 1] ?? '') : null;
  if (m !== null) (CONFIGS[1] as { env: NodeJS.ProcessEnv }).env[m[1] as string] = m[2];
}

interface RunResult {
  readonly name: string;
  readonly env: NodeJS.ProcessEnv;
  readonly seconds: number;
  readonly ok: number;
  readonly okPerSec: number;
  readonly shed503: number;
  readonly otherStatus: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly verifyP50Ms: number;
  readonly verifyP99Ms: number;
  readonly verifyMaxMs: number;
  readonly healthProbes: number;
  readonly healthP50Ms: number;
  readonly healthP99Ms: number;
  readonly healthMaxMs: number;
  readonly healthFailed: number;
}

/**
 * Probes GET /healthz on a new connection (as a load balancer's probe opens one) every 100 ms until told to stop, in a
 * worker thread: the load generator keeps this thread's event loop busy, which would be measured as the service's lag.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const times = [];
let failed = 0;
let probing = true;
const pending = new Set();
function probe() {
  const t0 = process.hrtime.bigint();
  const p = new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: workerData.port, path: '/healthz', agent: false, timeout: 30000 }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) times.push(Number(process.hrtime.bigint() - t0) / 1e6); else failed++; resolve(); });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => { failed++; resolve(); });
  });
  pending.add(p);
  p.then(() => pending.delete(p));
}
const timer = setInterval(() => probing && probe(), 100);
parentPort.on('message', async () => {
  probing = false;
  clearInterval(timer);
  await Promise.all([...pending]);
  parentPort.postMessage({ times, failed });
});
`;

function startProber(port: number): { stop: () => Promise<{ times: number[]; failed: number }> } {
  const worker = new Worker(PROBER, { eval: true, workerData: { port } });
  return {
    stop: async () => {
      const done = new Promise<{ times: number[]; failed: number }>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const r = await done;
      await worker.terminate();
      return r;
    },
  };
}

async function runOne(name: string, env: NodeJS.ProcessEnv, tenantsFile: string, tmp: string, body: string): Promise<RunResult> {
  const port = await freePort();
  const server = await startServer({
    name: name.replace(/\W+/g, '-'),
    entry: 'dist/server.js',
    cwd: repoRoot,
    env: benchServiceEnv(port, tenantsFile, env),
    port,
    readyPath: '/readyz',
    stderrFile: path.join(tmp, `${name.replace(/\W+/g, '-')}.stderr`),
  });
  try {
    const prober = startProber(port);
    const headers = { 'content-type': 'application/json', origin: BENCH_ORIGIN };
    const t0 = process.hrtime.bigint();
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      autocannon(
        {
          url: `http://127.0.0.1:${port}/v1/verify`,
          connections,
          pipelining: 1,
          duration: seconds,
          timeout: 30,
          method: 'POST',
          headers,
          body,
        },
        (err, r) => (err ? reject(err as Error) : resolve(r)),
      );
    });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const health = await prober.stop();
    const times = health.times.sort((a, b) => a - b);
    const status = result.statusCodeStats as Record<string, { count: number } | undefined>;
    return {
      name,
      env,
      seconds: Math.round(wall * 10) / 10,
      ok: result['2xx'],
      okPerSec: Math.round(result['2xx'] / wall),
      shed503: status['503']?.count ?? 0,
      otherStatus: result.non2xx - (status['503']?.count ?? 0),
      errors: result.errors,
      timeouts: result.timeouts,
      verifyP50Ms: result.latency.p50,
      verifyP99Ms: result.latency.p99,
      verifyMaxMs: result.latency.max,
      healthProbes: times.length + health.failed,
      healthP50Ms: Math.round(percentile(times, 50)),
      healthP99Ms: Math.round(percentile(times, 99)),
      healthMaxMs: Math.round(times.at(-1) ?? NaN),
      healthFailed: health.failed,
    };
  } finally {
    await stopServer(server);
  }
}

function table(results: RunResult[]): string {
  const rows: [string, (r: RunResult) => string][] = [
    ['verify 2xx (per s)', (r) => `${r.ok} (${r.okPerSec}/s)`],
    ['verify 503 (shed)', (r) => String(r.shed503)],
    ['other status / errors / timeouts', (r) => `${r.otherStatus} / ${r.errors} / ${r.timeouts}`],
    ['verify p50 / p99 / max (ms)', (r) => `${r.verifyP50Ms} / ${r.verifyP99Ms} / ${r.verifyMaxMs}`],
    ['/healthz probes (failed)', (r) => `${r.healthProbes} (${r.healthFailed})`],
    ['/healthz p50 / p99 / max (ms)', (r) => `${r.healthP50Ms} / ${r.healthP99Ms} / ${r.healthMaxMs}`],
  ];
  const head = `| | ${results.map((r) => r.name).join(' | ')} |\n|---|${results.map(() => '---').join('|')}|`;
  return [head, ...rows.map(([label, f]) => `| ${label} | ${results.map(f).join(' | ')} |`)].join('\n');
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-overload-'));
  try {
    const tenantsFile = writeBenchTenants(tmp);
    const body = worstCaseBody(repoRoot, bodyBytes).json;
    execSync('npm run build --silent', { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    process.stdout.write(
      `overload: ${connections} connections, ${Buffer.byteLength(body)} B bodies, ${seconds} s per run, ${os.cpus().length} cores, load average before ${load}\n`,
    );
    const results: RunResult[] = [];
    for (const c of CONFIGS) {
      if (only !== '' && !c.name.startsWith(only)) continue;
      const r = await runOne(c.name, c.env, tenantsFile, tmp, body);
      process.stdout.write(`${c.name}: ${JSON.stringify(r)}\n`);
      results.push(r);
    }
    process.stdout.write(`\n${table(results)}\n`);
    const dir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(
      dir,
      `overload-${new Date().toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}${quick ? '-quick' : ''}.json`,
    );
    writeFileSync(
      file,
      `${JSON.stringify({ date: new Date().toISOString(), connections, bodyBytes: Buffer.byteLength(body), seconds, loadAverageBefore: load, results }, null, 2)}\n`,
    );
    process.stdout.write(`written: ${path.relative(repoRoot, file)}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
