import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { restartDelayMs } from '../../service/workers.ts';
import { KEY, tenantsFile } from '../support/tenants.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../support/redis.ts';
import { freePort } from '../support/free-port.ts';
import { until } from '../support/until.ts';

/** The account's limit: more answers than this in the hour would mean each worker counted on its own. */
const LIMIT = 8;

let dir: string;
let port: number;
let adminPort: number;
let primary: ChildProcess;
let exited: Promise<number | null>;
let stdout = '';
const prefix = testPrefix('workers');
const redis = new Redis(REDIS_URL);

interface LogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly worker?: number;
  readonly role?: string;
  readonly statusCode?: number;
}

function logLines(): LogLine[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** The primary's children that run the service: its workers (tsx's esbuild service is a child too). */
function workerPids(): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('service/server.ts'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((p) => p > 0);
  } catch {
    return [];
  }
}

/** A verify request on a connection of its own (the primary hands connections, not requests, to the workers). */
function verify(): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ apiKey: KEY, formId: 'contact', payload: { name: 'Ada', message: 'Hello, I would like a quote.' } });
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/verify',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', origin: 'https://example.com', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-workers-'));
  const tenants = path.join(dir, 'tenants.json');
  await writeFile(tenants, JSON.stringify(tenantsFile({ rateLimit: { max: LIMIT, windowSeconds: 3600, algorithm: 'fixed' } })));
  port = await freePort();
  adminPort = await freePort();
  // tsx's loader is in execArgv, which node:cluster gives every worker it forks.
  primary = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'service/server.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      WORKERS: '2',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      TENANTS_FILE: tenants,
      REDIS_URL,
      RATE_LIMIT_PREFIX: `${prefix}:rl`,
      BULLMQ_PREFIX: prefix,
      REVIEW_SPOOL_DIR: path.join(dir, 'spool'),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  primary.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  primary.stderr?.on('data', (d: Buffer) => (stdout += d.toString()));
  exited = new Promise((resolve) => primary.on('exit', (code) => resolve(code)));
  await until(
    () =>
      new Set(
        logLines()
          .filter((l) => l.msg === 'model loaded; ready')
          .map((l) => l.pid),
      ).size === 2,
    'both workers ready',
    90_000,
  );
}, 120_000);

afterAll(async () => {
  if (primary.exitCode === null && primary.signalCode === null) {
    for (const pid of workerPids()) process.kill(pid, 'SIGKILL');
    primary.kill('SIGKILL');
  }
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

describe('WORKERS=2: one port, two service processes', () => {
  it('answers from two processes and counts one account limit for both, through Redis', async () => {
    expect(workerPids()).toHaveLength(2);
    const codes: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) codes.push(await verify());
    expect(codes).toEqual([...Array<number>(LIMIT).fill(200), 429, 429]);
    await until(() => logLines().filter((l) => l.msg === 'verify').length === LIMIT + 2, 'the verify log lines');
    const answeredBy = new Set(
      logLines()
        .filter((l) => l.msg === 'verify' && l.statusCode === 200)
        .map((l) => l.pid),
    );
    expect(answeredBy.size).toBe(2);
    expect([...answeredBy].sort()).toEqual(workerPids().sort());
  });

  it('serves /metrics on the admin port, summed over the workers', async () => {
    const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`^formguard_verify_requests_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    // Each worker answered some of these; only the sum is the service's count.
    expect(count('rate-limited')).toBe(2);
    expect(Object.values(['legitimate', 'spam']).reduce((n, o) => n + (count(o) || 0), 0)).toBe(LIMIT);
    // Which model is loaded stays a 1, not one per worker.
    expect(text).toMatch(/^formguard_model_info\{version="[^"]+",feature_version="[^"]+",role="active"\} 1$/m);
    expect((await fetch(`http://127.0.0.1:${adminPort}/docs/json`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
  });

  it('restarts a worker that dies, and the new one serves', async () => {
    const [victim, survivor] = workerPids();
    if (victim === undefined || survivor === undefined) throw new Error('expected two workers');
    process.kill(victim, 'SIGKILL');
    await until(
      () => {
        const pids = workerPids();
        return pids.length === 2 && !pids.includes(victim);
      },
      'a new worker in its place',
      30_000,
    );
    const [replacement] = workerPids().filter((p) => p !== survivor);
    // A scrape while the new worker starts is answered at once, from the workers that can answer.
    const scrape = await fetch(`http://127.0.0.1:${adminPort}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toMatch(/^formguard_verify_requests_total\{outcome="[a-z-]+"\} \d+$/m);
    await until(() => logLines().some((l) => l.msg === 'model loaded; ready' && l.pid === replacement), 'the new worker ready', 60_000);
    expect(logLines().some((l) => l.msg === 'worker died; restarting it' && l.role === 'primary')).toBe(true);
    // The limit is spent (shared, in Redis): the new worker answers 429 like the survivor.
    const before = logLines().filter((l) => l.msg === 'verify').length;
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push(await verify());
    expect(codes).toEqual([429, 429, 429, 429]);
    await until(() => logLines().filter((l) => l.msg === 'verify').length === before + 4, 'the verify log lines');
    const answeredBy = new Set(
      logLines()
        .filter((l) => l.msg === 'verify')
        .slice(before)
        .map((l) => l.pid),
    );
    expect(answeredBy).toEqual(new Set([replacement, survivor]));
  });

  it('drains both workers on SIGTERM: requests in flight are answered, then everything exits 0', async () => {
    // A fresh limit, so that the drained requests are answered 200: another window length counts under other keys.
    // (Deleting the counters would not do: the workers put back a counter Redis lost from the counts they last saw.)
    const reloads = () => logLines().filter((l) => l.msg === 'tenants file reloaded').length;
    const before = reloads();
    await writeFile(
      path.join(dir, 'tenants.json'),
      JSON.stringify(tenantsFile({ rateLimit: { max: LIMIT, windowSeconds: 3599, algorithm: 'fixed' } })),
    );
    await until(() => reloads() >= before + 2, 'both workers reloaded the tenants file');
    const body = JSON.stringify({ apiKey: KEY, formId: 'contact', payload: { name: 'Ada', message: 'Hello, I would like a quote.' } });
    const half = Math.floor(body.length / 2);
    // Four connections, handed to the workers in turn; each sends half its body, so its request is in flight.
    const sockets: { socket: Socket; answer: Promise<string> }[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', () => undefined);
      });
      socket.write(
        `POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nOrigin: https://example.com\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
      );
      sockets.push({ socket, answer });
    }
    const pids = workerPids();
    primary.kill('SIGTERM');
    await until(
      () =>
        new Set(
          logLines()
            .filter((l) => l.msg === 'shutting down: finishing in-flight requests')
            .map((l) => l.pid),
        ).size === 2,
      'both workers draining',
    );
    for (const { socket } of sockets) socket.write(body.slice(half));
    const answers = await Promise.all(sockets.map((s) => s.answer));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    // Both workers had requests in flight, and finished them.
    const drained = logLines()
      .filter((l) => l.msg === 'verify')
      .slice(-4);
    expect(new Set(drained.map((l) => l.pid))).toEqual(new Set(pids));
    expect(await exited).toBe(0);
    expect(
      logLines()
        .filter((l) => l.msg === 'stopped')
        .map((l) => l.role ?? l.pid),
    ).toEqual(expect.arrayContaining([...pids, 'primary']));
  });
});

describe('restart backoff', () => {
  it('doubles from half a second while a worker keeps dying soon after starting, up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
