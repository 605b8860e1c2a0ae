import type { RedisClient } from '../config/redis-target.ts';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';

/** What a Redis restart would keep: append-only file, snapshots, nothing, or not known (CONFIG not allowed). */
export type Persistence = 'aof' | 'rdb' | 'none' | 'unknown';

const MODES: readonly Persistence[] = ['aof', 'rdb', 'none', 'unknown'];

/** Reads `appendonly` and `save`; a server that refuses CONFIG (renamed, ACL, a managed Redis) is 'unknown'. */
export async function readPersistence(redis: RedisClient): Promise<Persistence> {
  try {
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[];
    if (appendonly === 'yes') return 'aof';
    const [, save] = (await redis.config('GET', 'save')) as string[];
    return save !== undefined && save.trim() !== '' ? 'rdb' : 'none';
  } catch {
    return 'unknown';
  }
}

/**
 * Checks at every (re)connection whether review items would survive a Redis restart, and says so when they would
 * not: a warning in the log, `redisPersistence` in /readyz, and formguard_redis_persistence{mode} = 1 for the mode
 * found. Items, labels, and the rate-limit counters live only in Redis; without persistence a restart loses them all.
 */
export class PersistenceWatch {
  #mode: Persistence | undefined;
  readonly #onReady: () => void;

  constructor(
    private readonly redis: RedisClient,
    log: Logger,
    registry?: Registry,
  ) {
    const gauge =
      registry === undefined
        ? undefined
        : ((registry.getSingleMetric('formguard_redis_persistence') as Gauge<'mode'> | undefined) ??
          new Gauge({
            name: 'formguard_redis_persistence',
            help: 'Redis persistence found at the last (re)connection: 1 for its mode (aof, rdb, none, unknown); none: a restart loses every review item',
            labelNames: ['mode'],
            registers: [registry],
          }));
    this.#onReady = () => {
      void readPersistence(redis).then((mode) => {
        const changed = mode !== this.#mode;
        this.#mode = mode;
        for (const m of MODES) gauge?.set({ mode: m }, m === mode ? 1 : 0);
        if (!changed) return;
        if (mode === 'none')
          log.warn(
            { redisPersistence: mode },
            'redis has no persistence (appendonly no, save ""): a Redis restart loses every review item and label and resets rate limits; set appendonly yes',
          );
        else if (mode === 'unknown')
          log.warn(
            { redisPersistence: mode },
            'redis persistence could not be read (CONFIG GET refused): make sure review items survive a Redis restart (appendonly yes)',
          );
        else log.info({ redisPersistence: mode }, 'redis persistence');
      });
    };
    redis.on('ready', this.#onReady);
    if (redis.status === 'ready') this.#onReady();
  }

  /** The mode found at the last (re)connection; undefined before the first. */
  get mode(): Persistence | undefined {
    return this.#mode;
  }

  close(): void {
    this.redis.off('ready', this.#onReady);
  }
}
