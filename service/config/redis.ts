import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** ioredis's options with its default (RESP2-shaped) replies, which the service's code is written for. */
export type CheckedRedisOptions = RedisOptions & { readonly replyMapping?: 'legacy' };

/** The server refused the database REDIS_URL names (SELECT <db> failed when the connection opened). */
export class RedisDatabaseError extends Error {
  override name = 'RedisDatabaseError';
  constructor(
    readonly db: number,
    where: string,
    reply: string,
  ) {
    const hint = /out of range|invalid DB index/i.test(reply)
      ? '; a default server has 16 databases, 0 to 15 (its "databases" setting)'
      : '';
    super(`REDIS_URL names database ${db}, which the Redis server at ${where} refused (SELECT ${db}: "${reply}")${hint}`);
  }
}

/**
 * An ioredis client that never works on a database other than the one its URL names. ioredis sends SELECT <db>
 * as the connection opens, but when the server refuses it (a number past its `databases` setting, an ACL, a
 * proxy without SELECT) it only emits an 'error' and goes on to "ready" on database 0: PING answered, so Redis
 * looked up, while rate limits and review jobs went to another database than the one configured. Here such a
 * connection is dropped before it is ready (and retried, so a server fixed later is picked up), and
 * `databaseError` says why until a connection succeeds. Copies made by duplicate() (BullMQ's blocking connection)
 * are checked the same way.
 */
export class CheckedRedis extends Redis {
  #databaseError: RedisDatabaseError | undefined;

  constructor(url: string, options: CheckedRedisOptions);
  constructor(options: CheckedRedisOptions);
  constructor(urlOrOptions: string | CheckedRedisOptions, options: CheckedRedisOptions = {}) {
    // ioredis reads (url, options) and a single options object (what duplicate() passes) alike.
    super(
      ...((typeof urlOrOptions === 'string' ? [urlOrOptions, options] : [{ ...urlOrOptions, ...options }]) as [
        string,
        CheckedRedisOptions,
      ]),
    );
    // Registered first, so every other 'error' listener already sees databaseError.
    this.on('error', (err: Error & { command?: { name?: string } }) => {
      if (err.command?.name !== 'select') return;
      this.#databaseError = new RedisDatabaseError(
        this.options.db ?? 0,
        `${this.options.host ?? ''}:${this.options.port ?? ''}`,
        err.message,
      );
      // Still in the handshake: the ready check has not run, so no command has reached database 0.
      this.disconnect(true);
    });
    this.on('ready', () => (this.#databaseError = undefined));
    // ioredis's duplicate() builds a plain Redis; BullMQ's worker duplicates its connection for blocking reads.
    this.duplicate = ((override?: Partial<RedisOptions>) =>
      new CheckedRedis({ ...this.options, ...override } as CheckedRedisOptions)) as Redis['duplicate'];
  }

  /** Why the last connection was dropped: its database was refused. Undefined once a connection is ready. */
  get databaseError(): RedisDatabaseError | undefined {
    return this.#databaseError;
  }
}

/**
 * How the first connection attempt ended: the database error if the server refused REDIS_URL's database, else
 * undefined (ready, unreachable, or no answer within `timeoutMs`; an unreachable Redis does not stop start-up).
 */
export function firstConnection(redis: CheckedRedis, timeoutMs: number): Promise<RedisDatabaseError | undefined> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      redis.off('close', done);
      resolve(redis.databaseError);
    };
    const timer = setTimeout(done, timeoutMs);
    if (redis.status === 'ready') return done();
    redis.on('ready', done);
    redis.on('error', done);
    redis.on('close', done);
  });
}

/** Fail fast: a rate-limit check must not wait for a reconnect (the limiter falls back to memory instead). */
export function createRedis(url: string, log: Logger): CheckedRedis {
  const redis = new CheckedRedis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 500,
    lazyConnect: false,
  });
  let lastWarn = 0;
  redis.on('error', (err: Error) => {
    // Reconnect attempts repeat the same error; one line per 10 s is enough.
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    const databaseError = redis.databaseError;
    if (databaseError !== undefined)
      log.error(
        { err: { message: databaseError.message } },
        'redis refused the database in REDIS_URL; not using Redis until it accepts it',
      );
    else log.warn({ err: { message: err.message } }, 'redis connection error');
  });
  return redis;
}
