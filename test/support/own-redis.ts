import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { tempDir } from './temp-dir.ts';
import { until } from './until.ts';

// A throwaway redis-server of the test's own, to stop, hang and start during traffic.
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
