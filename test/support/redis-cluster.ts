import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { until } from './until.ts';

const run = promisify(execFile);

/** A node of a test cluster: its port, its redis-server process, and its role as the cluster last said. */
export interface ClusterNodeProcess {
  readonly port: number;
  readonly proc: ChildProcess;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `count` ports from 7100 up (a random start, so suites running side by side rarely collide) whose bus ports (+10000) are free too. */
async function freeClusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  let port = 7100 + Math.floor(Math.random() * 80) * 10;
  for (let tries = 0; ports.length < count && tries < 2000; tries++, port++) {
    if (port > 9900) port = 7100;
    if ((await portFree(port)) && (await portFree(port + 10_000))) ports.push(port);
  }
  if (ports.length < count) throw new Error('no free loopback ports for a test cluster');
  return ports;
}

/** Polls `check` (a refused or failed probe counts as "not yet") every 100 ms until it holds. */
function settled(check: () => Promise<boolean>, what: string, limitMs: number): Promise<void> {
  return until(() => check().catch(() => false), `test cluster: ${what}`, limitMs, 100);
}

function probe(port: number): Redis {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: true,
  });
  redis.on('error', () => undefined);
  return redis;
}

async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const redis = probe(port);
  try {
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * A real Redis Cluster on loopback ports for tests: three masters with one replica each, its own redis-server
 * processes (stopped by PID, never by name) in a temporary folder, nothing saved to disk. A small
 * cluster-node-timeout lets a replica take over from a stopped master within seconds.
 */
export class TestCluster {
  readonly #nodes: ClusterNodeProcess[];
  readonly #dir: string;

  private constructor(nodes: ClusterNodeProcess[], dir: string) {
    this.#nodes = nodes;
    this.#dir = dir;
  }

  static async start(opts: { nodeTimeoutMs?: number } = {}): Promise<TestCluster> {
    const dir = await mkdtemp(path.join(tmpdir(), 'fg-cluster-'));
    const ports = await freeClusterPorts(6);
    const nodes: ClusterNodeProcess[] = ports.map((port) => {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        String(opts.nodeTimeoutMs ?? 2000),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ];
      return { port, proc: spawn('redis-server', args, { stdio: 'ignore' }) };
    });
    const cluster = new TestCluster(nodes, dir);
    try {
      for (const node of nodes) {
        await settled(
          async () => {
            if (node.proc.exitCode !== null) throw new Error(`redis-server on ${node.port} exited with ${node.proc.exitCode}`);
            return (await ask(node.port, (r) => r.ping())) === 'PONG';
          },
          `redis-server on ${node.port}`,
          15_000,
        );
      }
      await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
        timeout: 30_000,
      });
      await cluster.waitHealthy();
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  /** host:port of every node, as REDIS_CLUSTER_NODES takes them. */
  get seeds(): string {
    return this.#nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  get nodes(): { host: string; port: number }[] {
    return this.#nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  /** Nodes still running. */
  get alive(): ClusterNodeProcess[] {
    return this.#nodes.filter((n) => n.proc.exitCode === null && n.proc.signalCode === null);
  }

  /** Waits until every running node says the cluster is ok with all slots served and each master has a replica in sync. */
  async waitHealthy(limitMs = 30_000): Promise<void> {
    await settled(
      async () => {
        for (const node of this.alive) {
          const info = await ask(node.port, (r) => r.cluster('INFO'));
          if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
        }
        for (const port of await this.masters()) {
          const replication = await ask(port, (r) => r.info('replication'));
          if (!/slave0:.*state=online/.test(replication)) return false;
        }
        return true;
      },
      'the cluster to be ok',
      limitMs,
    );
  }

  /** Ports of the running masters that serve slots. */
  async masters(): Promise<number[]> {
    const node = this.alive[0];
    if (node === undefined) return [];
    const lines = String(await ask(node.port, (r) => r.cluster('NODES')))
      .split('\n')
      .filter((l) => l.trim() !== '');
    return lines
      .map((l) => l.split(' '))
      .filter((f) => /(^|,)master(,|$)/.test(f[2] ?? '') && !/fail/.test(f[2] ?? '') && f[8] !== undefined)
      .map((f) => Number(/:(\d+)@/.exec(f[1] ?? '')?.[1]))
      .filter((p) => this.alive.some((n) => n.port === p));
  }

  /** The port of the master that holds `key`'s slot now. */
  async masterOf(key: string): Promise<number> {
    const node = this.alive[0];
    if (node === undefined) throw new Error('test cluster: no node running');
    const slot = await ask(node.port, (r) => r.cluster('KEYSLOT', key));
    const slots = (await ask(node.port, (r) => r.cluster('SLOTS'))) as unknown as [number, number, [string, number, string]][];
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    if (range === undefined) throw new Error(`test cluster: no node serves slot ${slot}`);
    return range[2][1];
  }

  /** Kills one node's process (SIGKILL, by its PID: a crash, nothing flushed) and waits until it is gone. */
  async kill(port: number): Promise<void> {
    const node = this.#nodes.find((n) => n.port === port);
    if (node === undefined || node.proc.exitCode !== null || node.proc.signalCode !== null) return;
    const gone = new Promise((r) => node.proc.once('exit', r));
    node.proc.kill('SIGKILL');
    await gone;
  }

  /** Waits until a replica serves every slot `port` served, and every running node says the cluster is ok. */
  async waitFailover(port: number, limitMs = 30_000): Promise<void> {
    await settled(
      async () => {
        for (const node of this.alive) {
          const info = await ask(node.port, (r) => r.cluster('INFO'));
          if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
        }
        const node = this.alive[0];
        if (node === undefined) return false;
        const slots = (await ask(node.port, (r) => r.cluster('SLOTS'))) as unknown as [number, number, [string, number]][];
        return slots.every(([, , master]) => master[1] !== port);
      },
      `a replica to take over from ${port}`,
      limitMs,
    );
  }

  /** Stops every node by PID and removes the folder. */
  async stop(): Promise<void> {
    await Promise.all(this.#nodes.map((n) => this.kill(n.port)));
    await rm(this.#dir, { recursive: true, force: true });
  }
}
