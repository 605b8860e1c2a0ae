// Instructions per verify request of the bundled service, counted by valgrind's callgrind:
// `npx tsx bench/entries/callgrind.ts [--tree=<built checkout>] [--warm=N] [--requests=N] [--top=N]` (default: this tree, 10,000
// warm-up requests, 3,000 counted, the top 30 functions of each table). Starts `valgrind --tool=callgrind --instr-atstart=no node --perf-basic-prof dist/server.js`,
// warms it with the realistic 0.5-2 KB bodies (8 requests at a time), switches counting on, sends the counted requests,
// dumps, and prints the instructions per request with the JS functions that executed them (self and inclusive, named
// through V8's perf map). Unlike CPU time, the count does not move with the host's load: two runs of the same build
// differ by a few percent (JIT and GC timing), so it separates code changes of 5% on a busy host. Caveats: under
// valgrind the service runs ~50x slower, so per-second timers weigh ~50x more per request than at full speed, and the
// admission's 10 ms turn budget queues most requests (the bench raises MAX_VERIFY_WAIT_MS so none is shed); and the
// optimizing compiler's background jobs land in the counted window by chance (0-110k per request between runs of one
// build), so compare the figure without them, which the first line also prints.
// Needs valgrind (callgrind_control, callgrind_annotate); not part of `npm run bench`. Takes 5-15 minutes.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ORIGIN, realisticBodies } from '../lib/bodies.ts';
import { freePort } from '../lib/processes.ts';
import { benchServiceEnv, writeBenchTenants } from '../lib/tenants.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const tree = path.resolve(arg('tree') ?? repoRoot);
const warm = Number(arg('warm') ?? 10_000);
const counted = Number(arg('requests') ?? 3_000);
const top = Number(arg('top') ?? 30);
const CONCURRENCY = 8;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-callgrind-'));
const port = await freePort();
// vgdb (behind callgrind_control) finds the process by user and HOST, which benchServiceEnv sets to the listen address.
const vgEnv = { ...process.env, USER: process.env.USER ?? 'root', LOGNAME: process.env.LOGNAME ?? 'root', HOST: '127.0.0.1' };
const env = {
  ...benchServiceEnv(port, writeBenchTenants(tmp), { LOG_LEVEL: 'info', MAX_EVENT_LOOP_DELAY_MS: '0', MAX_VERIFY_WAIT_MS: '600000' }),
  USER: vgEnv.USER,
  LOGNAME: vgEnv.LOGNAME,
};
const out = path.join(tmp, 'callgrind.out');
const child = spawn(
  'valgrind',
  ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, 'node', '--perf-basic-prof', 'dist/server.js'],
  { cwd: tree, env, stdio: ['ignore', 'ignore', 'pipe'] },
);
let stderr = '';
child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { env: vgEnv, stdio: 'ignore' });

try {
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600 || child.exitCode !== null) throw new Error(`the service did not get ready under valgrind: ${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const bodies = realisticBodies(repoRoot).filter((b) => b.bytes >= 512);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const post = (json: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${url}/v1/verify`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN, 'content-length': Buffer.byteLength(json) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(json);
    });
  const send = async (n: number) => {
    let left = n;
    let failed = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) if ((await post((bodies[next++ % bodies.length] as { json: string }).json)) !== 200) failed++;
      }),
    );
    if (failed > 0) throw new Error(`${failed} of ${n} requests were not answered 200`);
  };
  await send(warm);
  control('-i', 'on');
  await send(counted);
  control('-d');
  const dump = readdirSync(tmp).find((f) => f.startsWith('callgrind.out.'));
  if (dump === undefined) throw new Error('callgrind wrote no dump');
  const file = path.join(tmp, dump);
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(file, 'utf8'))?.[1]);
  // JIT code has no symbols: name it through the perf map V8 writes (/tmp/perf-<pid>.map, the newest entry wins).
  const map = readFileSync(`/tmp/perf-${child.pid}.map`, 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((p) => p.length >= 3)
    .map((p) => ({ start: parseInt(p[0] as string, 16), size: parseInt(p[1] as string, 16), name: p.slice(2).join(' ') }))
    .sort((a, b) => a.start - b.start);
  const nameAt = (addr: number) => {
    let lo = 0;
    let hi = map.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = map[mid] as { start: number; size: number; name: string };
      if (e.start <= addr) {
        if (addr < e.start + e.size) found = e.name;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found?.replace(/^JS:[*~^+]?/, '').replace(`file://${tree}/`, '');
  };
  const table = (inclusive: boolean) => {
    const text = execFileSync('callgrind_annotate', [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', file], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    const by = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^\s*([\d,]+) \([ \d.]+%\)\s+(\S.*)$/.exec(line);
      if (m === null || (m[2] as string).includes('PROGRAM TOTALS')) continue;
      const fn = m[2] as string;
      const jit = /^\?\?\?:0x([0-9a-f]+)/.exec(fn);
      const name = jit ? nameAt(parseInt(jit[1] as string, 16)) : fn.replace(/^\?\?\?:/, '').replace(/\(.*$/, '');
      if (name === undefined) continue;
      by.set(name, (by.get(name) ?? 0) + Number((m[1] as string).replaceAll(',', '')));
    }
    return [...by.entries()]
      .filter(([name]) => !inclusive || /dist\/|node_modules\/|node:/.test(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, ir]) => `${((100 * ir) / total).toFixed(1).padStart(5)}% ${(ir / counted).toFixed(0).padStart(8)}  ${name.slice(0, 110)}`,
      )
      .join('\n');
  };
  // TurboFan's background jobs run in the counted window too (valgrind runs the threads one at a time, so jobs queued
  // in the warm-up finish late): up to ~100k per request that a warmed-up service at full speed no longer spends.
  const inclusiveText = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const compileLine = inclusiveText.split('\n').find((l) => l.includes('OptimizingCompileDispatcher::CompileTask::RunInternal'));
  const compiling = Number((/^\s*([\d,]+)/.exec(compileLine ?? '')?.[1] ?? '0').replaceAll(',', ''));
  console.log(
    `${tree}: ${(total / counted).toFixed(0)} instructions per request (${counted} counted after ${warm} warm-up requests), ` +
      `${((total - compiling) / counted).toFixed(0)} without the optimizing compiler's background jobs (${(compiling / counted).toFixed(0)})`,
  );
  console.log(`--- self, instructions per request\n${table(false)}`);
  console.log(`--- inclusive (JS functions), instructions per request\n${table(true)}`);
} finally {
  child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
  rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  for (const f of readdirSync(os.tmpdir()))
    if (f.startsWith('vgdb-pipe-') && f.includes(`-${child.pid}-`)) rmSync(path.join(os.tmpdir(), f));
}
