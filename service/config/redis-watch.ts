import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { RedisClient } from './redis-target.ts';

/** How often Redis's memory, eviction policy and identity are read; a policy that evicts is logged at most this often. */
const CHECK_MS = 10_000;
const POLICY_WARN_MS = 60_000;
/** How long /readyz keeps saying that Redis came back without its data. */
const LOSS_SHOWN_MS = 3_600_000;

export interface RedisWatchOptions {
  /** The verify path's connection: INFO and the sentinel key go through it. */
  readonly redis: RedisClient;
  readonly log: Logger;
  readonly registry: Registry;
  /** A key the service writes and expects to find again: missing, Redis lost its data (restart, flush, eviction). */
  readonly sentinelKey: string;
  /** What else was in Redis (review jobs by state, ...), read before and after: logged with a loss. */
  readonly counts?: () => Promise<Record<string, number>>;
  readonly checkMs?: number;
  readonly now?: () => number;
}

interface Memory {
  readonly used: number;
  readonly max: number;
  readonly policy: string;
}

/**
 * Says why Redis is not doing its job, in /readyz (`redisProblems`, `redisConnections`, `redisMemory`), in /metrics
 * and in the log: a connection that is not ready (each by its role), writes refused at `maxmemory` (OOM), an
 * eviction policy other than `noeviction` (it would evict review items and rate-limit counters: logged at error level
 * every minute while it lasts), and data found missing (Redis restarted without persistence, was flushed, or evicted
 * the service's sentinel key): logged at error level with what was there before and after.
 */
export class RedisWatch {
  readonly #o: RedisWatchOptions;
  readonly #now: () => number;
  readonly #connections = new Map<string, RedisClient>();
  readonly #down = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  readonly #onReady = () => void this.check();
  #memory: Memory | undefined;
  #runId: string | undefined;
  #checking: Promise<void> | undefined;
  #sentinelSeen = false;
  #lastCounts: Record<string, number> | undefined;
  #lastKeys: number | undefined;
  #lostAt: number | undefined;
  #lost: string | undefined;
  #policyWarnedAt = -Infinity;
  #refused = false;
  #closed = false;
  readonly #dataLost: Counter;
  readonly #evicted: Counter;
  /** INFO stats' evicted_keys at the last check, and of which Redis run (a restart starts it over). */
  #evictedSeen: { runId: string | undefined; keys: number } | undefined;
  #evictedAt: number | undefined;
  #evictedSince = 0;

  constructor(options: RedisWatchOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const registry = options.registry;
    const connections = this.#connections;
    // Summed over workers a 1 would count them: any worker's connection down makes its role 0.
    new Gauge({
      name: 'formguard_redis_connection_ready',
      help: 'Whether each Redis connection is ready (1) or not (0), by role: limiter (rate limits, breaker, shadow), review, review-worker, review-worker-blocking',
      labelNames: ['role'],
      registers: [registry],
      aggregator: 'min',
      collect() {
        for (const [role, client] of connections) this.set({ role }, client.status === 'ready' ? 1 : 0);
      },
    });
    const gauge = (name: string, help: string, value: () => number | undefined) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        aggregator: 'max',
        collect() {
          const v = value();
          if (v !== undefined) this.set(v);
        },
      });
    gauge('formguard_redis_memory_used_bytes', 'Redis used_memory at the last check', () => this.#memory?.used);
    gauge('formguard_redis_memory_max_bytes', 'Redis maxmemory at the last check (0: no limit)', () => this.#memory?.max);
    gauge(
      'formguard_redis_writes_refused',
      'Whether Redis refuses writes (1): used_memory at maxmemory with noeviction (OOM); rate limits then count shares in memory and review items go to the spool',
      () => (this.#refused ? 1 : 0),
    );
    gauge(
      'formguard_redis_eviction_policy_unsafe',
      'Whether Redis maxmemory-policy is other than noeviction (1): it would evict review items and rate-limit counters',
      () => (this.#memory === undefined ? undefined : this.#memory.policy === 'noeviction' ? 0 : 1),
    );
    this.#dataLost = new Counter({
      name: 'formguard_redis_data_lost_total',
      help: 'Times Redis was found without the data the service had written (restart without persistence, flush, eviction)',
      registers: [registry],
    });
    this.#dataLost.inc(0);
    // Every instance reads the same Redis count: the largest of the workers' is the figure, not their sum.
    this.#evicted = new Counter({
      name: 'formguard_redis_evicted_keys_total',
      help: 'Keys Redis evicted at its memory limit (INFO evicted_keys) while this instance watched: review items, queued jobs, look-up data or rate-limit counters, lost',
      registers: [registry],
      aggregator: 'max',
    });
    this.#evicted.inc(0);
    this.watch('limiter', options.redis);
    options.redis.on('ready', this.#onReady);
    this.#timer = setInterval(() => void this.check(), options.checkMs ?? CHECK_MS).unref();
    if (options.redis.status === 'ready') void this.check();
  }

  /** Reports this connection's state under `role` (metric, /readyz, a log line when it is lost and when it is back). */
  watch(role: string, client: RedisClient): void {
    this.#connections.set(role, client);
    const lost = (): void => {
      if (this.#closed || this.#down.has(role)) return;
      this.#down.add(role);
      this.#o.log.warn({ connection: role, status: client.status }, 'redis: connection not ready; it reconnects by itself');
    };
    client.on('close', lost);
    client.on('ready', () => {
      if (!this.#down.delete(role)) return;
      this.#o.log.info({ connection: role }, 'redis: connection ready again');
    });
  }

  /** What /readyz says about Redis beyond up or down. */
  detail(): Record<string, unknown> {
    const connections = Object.fromEntries([...this.#connections].map(([role, c]) => [role, c.status]));
    const problems = this.problems();
    return {
      redisConnections: connections,
      ...(this.#memory === undefined ? {} : { redisMemory: { ...this.#memory } }),
      ...(problems.length > 0 ? { redisProblems: problems } : {}),
    };
  }

  problems(): string[] {
    const problems: string[] = [];
    for (const [role, c] of this.#connections) if (c.status !== 'ready') problems.push(`redis connection ${role} is ${c.status}`);
    const m = this.#memory;
    if (this.#refused && m !== undefined)
      problems.push(
        `redis refuses writes (OOM): used_memory ${m.used} of maxmemory ${m.max}; review items are spooled, look-up writes skipped, rate limits counted as shares`,
      );
    if (m !== undefined && m.policy !== 'noeviction')
      problems.push(`redis maxmemory-policy is ${m.policy}: it evicts review items and rate-limit counters; set noeviction`);
    if (this.#evictedAt !== undefined && this.#now() - this.#evictedAt < LOSS_SHOWN_MS)
      problems.push(
        `redis evicted ${this.#evictedSince} keys (review data, queued jobs or rate-limit counters), the last at ${new Date(this.#evictedAt).toISOString()}`,
      );
    if (this.#lost !== undefined && this.#lostAt !== undefined && this.#now() - this.#lostAt < LOSS_SHOWN_MS) problems.push(this.#lost);
    return problems;
  }

  /**
   * Reads memory, policy, identity and the sentinel; logs what changed. Never throws. Calls made while one runs (the
   * reconnect's, the interval's, a caller's) share it: two at once would both find the sentinel gone and count one loss twice.
   */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<void> {
    const redis = this.#o.redis;
    if (redis.status !== 'ready') return;
    try {
      const info = await redis.info();
      const field = (name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
      const memory: Memory = {
        used: Number(field('used_memory') ?? 0),
        max: Number(field('maxmemory') ?? 0),
        policy: (await this.#policy()) ?? field('maxmemory_policy') ?? 'unknown',
      };
      this.#memory = memory;
      this.#checkMemory(memory);
      this.#checkEvicted(field('run_id'), Number(field('evicted_keys') ?? 0));
      await this.#checkIdentity(field('run_id'), Number(/^db\d+:keys=(\d+)/m.exec(info)?.[1] ?? 0));
    } catch (err) {
      this.#o.log.debug({ err }, 'redis: check skipped');
    }
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#o.redis.off('ready', this.#onReady);
  }

  /** CONFIG GET first (the setting itself); a server that refuses CONFIG still says it in INFO memory. */
  async #policy(): Promise<string | undefined> {
    try {
      const [, policy] = (await this.#o.redis.config('GET', 'maxmemory-policy')) as string[];
      return policy;
    } catch {
      return undefined;
    }
  }

  #checkMemory(m: Memory): void {
    const refused = m.max > 0 && m.used >= m.max && m.policy === 'noeviction';
    if (refused !== this.#refused) {
      if (refused)
        this.#o.log.error(
          { usedMemory: m.used, maxmemory: m.max },
          'redis refuses writes (used_memory at maxmemory, noeviction): review items go to the spool, look-up writes are skipped, rate limits count shares in memory; free memory or raise maxmemory',
        );
      else this.#o.log.info({ usedMemory: m.used, maxmemory: m.max }, 'redis accepts writes again');
      this.#refused = refused;
    }
    if (m.policy !== 'noeviction' && this.#now() - this.#policyWarnedAt >= POLICY_WARN_MS) {
      this.#policyWarnedAt = this.#now();
      this.#o.log.error(
        { maxmemoryPolicy: m.policy },
        'redis maxmemory-policy is not noeviction: Redis may evict review items, the review queue and rate-limit counters at its memory limit; set maxmemory-policy noeviction',
      );
    }
  }

  /** Keys Redis evicted since the last check (of the same Redis run), counted and logged at error level. */
  #checkEvicted(runId: string | undefined, keys: number): void {
    const last = this.#evictedSeen;
    this.#evictedSeen = { runId, keys };
    if (last === undefined) return;
    const added = last.runId === runId ? keys - last.keys : keys;
    if (added <= 0) return;
    this.#evicted.inc(added);
    this.#evictedSince += added;
    this.#evictedAt = this.#now();
    this.#o.log.error(
      { evictedKeys: added, evictedKeysTotal: this.#evictedSince },
      'redis evicted keys at its memory limit: review items, queued jobs, look-up data or rate-limit counters are gone; set maxmemory-policy noeviction',
    );
  }

  async #checkIdentity(runId: string | undefined, keys: number): Promise<void> {
    const redis = this.#o.redis;
    const sentinel = await redis.get(this.#o.sentinelKey);
    const counts = await this.#o.counts?.().catch(() => undefined);
    const restarted = runId !== undefined && this.#runId !== undefined && runId !== this.#runId;
    if (this.#sentinelSeen && sentinel === null) {
      this.#dataLost.inc();
      this.#lostAt = this.#now();
      const why = restarted ? 'restarted without its data (no persistence)' : 'lost the service data (flushed, or evicted)';
      this.#lost = `redis ${why} at ${new Date(this.#lostAt).toISOString()}: keys ${this.#lastKeys ?? '?'} before, ${keys} after`;
      this.#o.log.error(
        {
          runIdBefore: this.#runId,
          runIdAfter: runId,
          keysBefore: this.#lastKeys,
          keysAfter: keys,
          ...(this.#lastCounts === undefined ? {} : { before: this.#lastCounts }),
          ...(counts === undefined ? {} : { after: counts }),
        },
        `redis ${why}: review items, labels and queued jobs written before are gone; rate limits go on from the counts each instance last saw`,
      );
    } else if (restarted) {
      this.#o.log.warn({ runIdBefore: this.#runId, runIdAfter: runId }, 'redis restarted; its data is still there');
    }
    if (sentinel === null) {
      // Refused at the memory limit: tried again at the next check.
      const wrote = await redis
        .set(this.#o.sentinelKey, JSON.stringify({ runId, at: new Date(this.#now()).toISOString() }))
        .catch(() => null);
      this.#sentinelSeen = wrote === 'OK';
    } else this.#sentinelSeen = true;
    if (runId !== undefined) this.#runId = runId;
    this.#lastKeys = keys;
    if (counts !== undefined) this.#lastCounts = counts;
  }
}
