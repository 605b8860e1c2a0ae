import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A server started as its own process (`node dist/server.js` as `npm start` runs it, or node + tsx for a .ts entry), with its start-to-ready time. */
export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** spawn → first 200 from the ready path, ms. */
  readonly readyMs: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `node <entry>` (a built .js entry) or `node --import tsx <entry>` (one process, so its pid is the server's: `npx tsx` would add a parent
 * process) and polls `readyPath` every 5 ms until it answers 200. stdout (the pino log) goes to `stdoutFile` or /dev/null,
 * stderr to `stderrFile` for diagnosis.
 */
export async function startServer(opts: {
  name: string;
  entry: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  readyPath: string;
  stderrFile: string;
  /** Where the pino log goes (default /dev/null). */
  stdoutFile?: string;
  timeoutMs?: number;
  /** Extra node flags, e.g. --cpu-prof (not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
}): Promise<Started> {
  const url = `http://127.0.0.1:${opts.port}`;
  const t0 = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), ...(opts.entry.endsWith('.ts') ? ['--import', 'tsx'] : []), opts.entry],
    {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', openSync(opts.stdoutFile ?? '/dev/null', 'w'), openSync(opts.stderrFile, 'w')],
    },
  );
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`${opts.name} ${exited}; stderr: ${readFileSync(opts.stderrFile, 'utf8').slice(0, 2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.name} not ready after ${opts.timeoutMs ?? 30_000} ms`);
    }
    const ok = await fetch(url + opts.readyPath).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = Number(process.hrtime.bigint() - t0) / 1e6;
  return { name: opts.name, child, pid: child.pid as number, url, readyMs };
}

/** SIGTERM (graceful path), SIGKILL after 10 s. */
export async function stopServer(s: Started): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const done = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(timer);
}

/** Resident set size of a process, in MiB (VmRSS from /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** A redis-server of the bench's own on a free loopback port: nothing kept on disk (`dir` only for its working files). */
export interface OwnRedisServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Kills it (after a SIGCONT, in case a bench stopped it) and waits for the process to be gone. */
  stop(): Promise<void>;
}

export async function startRedisServer(dir: string, extra: readonly string[] = []): Promise<OwnRedisServer> {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const ok = await probe.connect().then(
      () => probe.ping(),
      () => undefined,
    );
    probe.disconnect();
    if (ok === 'PONG') break;
    if (i > 100) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    pid: proc.pid as number,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const gone = new Promise((r) => proc.once('exit', r));
      process.kill(proc.pid as number, 'SIGCONT');
      proc.kill('SIGKILL');
      await gone;
    },
  };
}
