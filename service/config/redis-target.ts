import { Cluster, type Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisNode } from './env.ts';
import { CheckedRedis, createRedis } from './redis.ts';

/** What REDIS_URL or REDIS_CLUSTER_NODES names: one Redis server, or the seed nodes of a Redis Cluster. */
export type RedisTarget =
  { readonly kind: 'server'; readonly url: string } | { readonly kind: 'cluster'; readonly nodes: readonly RedisNode[] };

/** A connection to either: everything that uses Redis takes this, and sends only single-slot commands and scripts. */
export type RedisClient = Redis | Cluster;

/** The Redis the environment names, or undefined without one (the parsed env never holds both). */
export function redisTarget(env: {
  readonly REDIS_URL?: string | undefined;
  readonly REDIS_CLUSTER_NODES?: readonly RedisNode[] | undefined;
}): RedisTarget | undefined {
  if (env.REDIS_CLUSTER_NODES !== undefined) return { kind: 'cluster', nodes: env.REDIS_CLUSTER_NODES };
  if (env.REDIS_URL !== undefined) return { kind: 'server', url: env.REDIS_URL };
  return undefined;
}

/** Where the target is, for logs and terminal tools: hosts only (a URL may hold a password). */
export function describeRedis(target: RedisTarget): string {
  if (target.kind === 'server') return `Redis ${new URL(target.url).host}`;
  return `Redis Cluster (seeds ${target.nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',')})`;
}

/** Per-node options; those a Cluster manages itself (retries, offline queue) are given separately. */
export type ConnectionOptions = Omit<
  RedisOptions,
  'host' | 'port' | 'path' | 'retryStrategy' | 'enableOfflineQueue' | 'db' | 'replyMapping'
> & {
  readonly enableOfflineQueue?: boolean;
  /** Delay before reconnect attempt `attempt` (a Cluster's retry of its seed nodes). */
  readonly retryDelayMs?: (attempt: number) => number;
};

/**
 * Opens the target with the same options either way. A cluster connection gives up on a command as a single one
 * does (commandTimeout), and finds a promoted replica by refreshing its slot map (MOVED, or every few seconds).
 */
export function openRedis(target: RedisTarget, options: ConnectionOptions): RedisClient {
  const { enableOfflineQueue, retryDelayMs, ...nodeOptions } = options;
  if (target.kind === 'server') {
    return new CheckedRedis(target.url, {
      ...nodeOptions,
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(retryDelayMs === undefined ? {} : { retryStrategy: retryDelayMs }),
    });
  }
  return new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      redisOptions: nodeOptions,
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(retryDelayMs === undefined ? {} : { clusterRetryStrategy: retryDelayMs }),
      slotsRefreshTimeout: 1000,
    },
  );
}

/** The verify path's connection (rate limits, failed-key guard): fails fast, as createRedis's does for one server. */
export function createRedisClient(target: RedisTarget, log: Logger): RedisClient {
  if (target.kind === 'server') return createRedis(target.url, log);
  const cluster = openRedis(target, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 500 });
  let lastWarn = 0;
  cluster.on('error', (err: Error) => {
    // Reconnect attempts repeat the same error; one line per 10 s is enough.
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    log.warn({ err: { message: err.message } }, 'redis cluster connection error');
  });
  return cluster;
}

export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/**
 * BullMQ's key prefix. On a cluster every key of a queue must hash to one slot (its scripts touch many), so the prefix
 * becomes a hash tag, `{formguard}`, unless it already holds one. A single server keeps the prefix as configured.
 */
export function queuePrefix(prefix: string, target: RedisTarget): string {
  if (target.kind === 'server' || /\{[^}]+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}

/**
 * Calls `each` with every batch of keys matching `pattern`, on every master of a cluster (SCAN walks one node's
 * keys only) or on the one server.
 */
export async function scanKeys(client: RedisClient, pattern: string, each: (keys: string[]) => Promise<void>): Promise<void> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await each(found);
    } while (cursor !== '0');
  }
}

/** Deletes keys; on a cluster one by one (a multi-key DEL must stay in one slot), else in one command. */
export async function deleteKeys(client: RedisClient, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!isCluster(client)) return client.del(...keys);
  const counts = await Promise.all(keys.map((k) => client.del(k)));
  return counts.reduce((a, b) => a + b, 0);
}
