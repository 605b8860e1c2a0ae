import { randomBytes, randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { ModeratorSource } from '../../../service/review/console/auth.ts';
import type { ReviewJob } from '../../../service/review/intake/job-schema.ts';

export { REDIS_URL } from '../../support/redis.ts';
export const silent = pino({ level: 'silent' });

/** A prefix of its own for each suite, so suites can run side by side and be cleaned up. */
export function testPrefix(name: string): string {
  return `fgtest-${name}-${randomBytes(4).toString('hex')}`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function tempDir(name: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `fg-${name}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

let sequence = 0;
/** A plain ReviewJob (a fake verdict: these tests are about the queue, not the model). */
export function fakeJob(over: Partial<ReviewJob> & { status?: 'spam' | 'legitimate'; confidence?: number } = {}): ReviewJob {
  const { status = 'spam', confidence = 0.95, ...rest } = over;
  sequence++;
  return {
    submissionId: randomUUID(),
    accountId: 'acme',
    formId: 'contact',
    receivedAt: new Date(Date.now() - 60_000 + sequence).toISOString(),
    origin: 'example.com',
    fields: { name: `Sender ${sequence}`, message: `Message number ${sequence}` },
    truncated: false,
    verdict: { status, confidence, reasoning: 'test verdict', modelVersion: 'test-1' },
    ...rest,
  };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A stand-in for the tenants store: moderators by token hash. */
export function moderators(
  list: { accountId: string; moderatorId: string; token: string }[],
): ModeratorSource & { set(l: typeof list): void } {
  const build = (l: typeof list) => new Map(l.map((m) => [sha256(m.token), { accountId: m.accountId, moderatorId: m.moderatorId }]));
  const source = { current: { moderators: build(list) }, set: (l: typeof list) => (source.current = { moderators: build(l) }) };
  return source;
}

/** Polls until check() is true (no fixed sleeps: the condition decides). */
export async function until(check: () => Promise<boolean> | boolean, what: string, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A throwaway redis-server of the test's own, to stop and start during traffic. */
/** A redis-server of the test's own in a temporary folder, started; `cleanups` gets what kills it and removes the folder. */
export async function startOwnRedis(
  name: string,
  cleanups: Array<() => Promise<void> | void>,
  extra: readonly string[] = [],
): Promise<OwnRedis> {
  const data = await tempDir(name);
  const server = new OwnRedis(await freePort(), data.dir);
  await server.start(extra);
  cleanups.push(async () => {
    server.kill();
    await data.remove();
  });
  return server;
}

export class OwnRedis {
  #proc: ChildProcess | undefined;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** dir: where a SHUTDOWN SAVE writes its snapshot, so data survives a stop like a persistent Redis's would. */
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  async start(extra: readonly string[] = []): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, ...extra];
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    this.#proc = proc;
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await until(async () => {
        if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          probe.disconnect();
          return false;
        }
      }, 'redis-server to answer');
    } finally {
      probe.disconnect();
    }
  }

  /** Stops it (SHUTDOWN SAVE: what it held comes back at the next start) and waits for the process to be gone. */
  async stop(): Promise<void> {
    const proc = this.#proc;
    if (proc === undefined || proc.exitCode !== null) return;
    const gone = new Promise((r) => proc.once('exit', r));
    const admin = new Redis(this.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on('error', () => undefined);
    await admin.shutdown('SAVE').catch(() => undefined);
    admin.disconnect();
    await gone;
    this.#proc = undefined;
  }

  /** Its process id (to SIGSTOP and SIGCONT it: a hung Redis). */
  get pid(): number {
    const pid = this.#proc?.pid;
    if (pid === undefined) throw new Error('redis-server is not running');
    return pid;
  }

  /** Kills it outright (cleanup). */
  kill(): void {
    this.#proc?.kill('SIGKILL');
    this.#proc = undefined;
  }
}

/** A pino logger that keeps its lines, to check what was (not) logged. */
export function captureLines(): { logger: pino.Logger; text: () => string } {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, text: () => lines.join('') };
}
