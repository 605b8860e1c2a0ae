import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { buildAdminApp } from './admin.ts';
import { buildApp } from './app.ts';
import type { Env } from './config/env.ts';
import type { RedisClient, RedisTarget } from './config/redis-target.ts';
import type { RedisWatch } from './config/redis-watch.ts';
import type { ServingFollower } from './models/serving-follower.ts';
import { RedisShadowSink } from './models/shadow.ts';
import { InstanceHeartbeat } from './rate-limit/instances.ts';
import { MemoryRateLimiter } from './rate-limit/memory.ts';
import { RedisRateLimiter } from './rate-limit/redis.ts';
import type { RateLimiter } from './rate-limit/types.ts';
import { CircuitBreaker } from './resilience/breaker.ts';
import type { Review } from './review/setup.ts';
import type { TenantsStore } from './tenants/store.ts';

export interface ServiceParts {
  readonly env: Env;
  readonly log: Logger;
  readonly tenants: TenantsStore;
  readonly serving: ServingFollower;
  /** The Redis of REDIS_URL or REDIS_CLUSTER_NODES, connected by the caller; without it the service runs embedded. */
  readonly redis?: { client: RedisClient; target: RedisTarget };
  /** With WORKERS > 1, the worker slot (1..WORKERS) this process fills. */
  readonly workerSlot?: number;
  /** The clock the breaker and the rate limits read: Date.now in production; tests move their own. */
  readonly now?: () => number;
}

export interface Service {
  readonly app: FastifyInstance;
  /** The /metrics and /docs server, unless ADMIN_PORT is off or this is a worker (the primary serves them). */
  readonly admin: FastifyInstance | undefined;
  readonly metricsRegistry: Registry;
  readonly breaker: CircuitBreaker | undefined;
  readonly heartbeat: InstanceHeartbeat | undefined;
  readonly rateLimiter: RateLimiter;
  readonly review: Review | undefined;
  readonly watch: RedisWatch | undefined;
}

/**
 * The service's dependencies put together from the environment: the breaker, rate limiter, review queue and Redis
 * watch around the given Redis, the app and its admin server. It neither listens nor installs signal handlers
 * (service/server.ts does), so tests can build exactly what production runs.
 */
export async function composeService(parts: ServiceParts): Promise<Service> {
  const { env, log, tenants, serving, workerSlot } = parts;
  const now = parts.now ?? Date.now;
  const redis = parts.redis?.client;
  const target = parts.redis?.target;
  const metricsRegistry = new Registry();
  const breakerOpen = new Gauge({
    name: 'formguard_redis_breaker_open',
    help: 'Whether calls to Redis go straight to their fallback (1) after a run of slow or failed ones',
    registers: [metricsRegistry],
  });
  const breakerOpenings = new Counter({
    name: 'formguard_redis_breaker_openings_total',
    help: 'Times the Redis circuit opened (Redis answered nothing within REDIS_BREAKER_TIMEOUT_MS, or calls failed in a row)',
    registers: [metricsRegistry],
  });
  breakerOpenings.inc(0);
  // One breaker for the one Redis server: the rate limit, the failed-key guard and the review queue add.
  const breaker =
    redis === undefined
      ? undefined
      : new CircuitBreaker({
          failures: env.REDIS_BREAKER_FAILURES,
          callTimeoutMs: env.REDIS_BREAKER_TIMEOUT_MS,
          openMs: env.REDIS_BREAKER_OPEN_MS,
          now,
          probe: () => (redis as RedisClient).ping(),
          onChange: (state, reason) => {
            breakerOpen.set(state === 'open' ? 1 : 0);
            if (state === 'open') breakerOpenings.inc();
            if (state === 'open')
              log.warn(
                { reason },
                'redis: circuit open; rate limits count in memory and review items go to the spool until Redis answers a probe',
              );
            else log.info({ reason }, 'redis: circuit closed; Redis answers again');
          },
        });
  let lastLimiterWarn = 0;
  const limitsRestored = new Counter({
    name: 'formguard_rate_limit_restored_total',
    help: 'Rate-limit counters Redis had lost (a restart without persistence, an eviction), put back from the counts last seen',
    registers: [metricsRegistry],
  });
  limitsRestored.inc(0);
  // How many instances share the limits: while Redis cannot count, each allows only its share of what is left.
  const heartbeat = redis === undefined ? undefined : new InstanceHeartbeat(redis, env.RATE_LIMIT_PREFIX);
  const rateLimiter =
    redis === undefined
      ? new MemoryRateLimiter({ now })
      : new RedisRateLimiter(redis, {
          prefix: env.RATE_LIMIT_PREFIX,
          now,
          fallback: new MemoryRateLimiter({ now }),
          ...(breaker === undefined ? {} : { breaker }),
          ...(heartbeat === undefined ? {} : { liveInstances: () => heartbeat.live }),
          onRestored: () => limitsRestored.inc(),
          onError: (err) => {
            if (now() - lastLimiterWarn < 10_000) return;
            lastLimiterWarn = now();
            log.warn(
              { err, liveInstances: heartbeat?.live },
              'redis rate limit failed; this instance allows only its share of what each limit has left until Redis counts again',
            );
          },
        });
  if (redis === undefined) {
    log.info(
      workerSlot === undefined
        ? 'REDIS_URL is not set: rate limits are counted per process, and the review queue is off (no /review console)'
        : 'REDIS_URL is not set: rate limits are counted per worker (ALLOW_PER_WORKER_LIMITS), and the review queue is off (no /review console)',
    );
  }

  // One spool folder per worker: a spool is one process's file (a drain renames it aside while appends go on).
  const spoolDir = workerSlot === undefined ? env.REVIEW_SPOOL_DIR : path.join(env.REVIEW_SPOOL_DIR, `worker-${workerSlot}`);
  const reviewEnv = { ...env, REVIEW_SPOOL_DIR: spoolDir };
  const review =
    target === undefined
      ? undefined
      : (await import('./review/setup.ts')).startReview({
          env:
            target.kind === 'server'
              ? { ...reviewEnv, REDIS_URL: target.url, REDIS_CLUSTER_NODES: undefined }
              : { ...reviewEnv, REDIS_URL: undefined, REDIS_CLUSTER_NODES: target.nodes },
          log,
          moderators: tenants,
          registry: metricsRegistry,
          accountPolicy: (accountId) => tenants.current.accounts.get(accountId)?.review,
          ...(breaker === undefined ? {} : { breaker }),
        });

  // Why Redis is not doing its job, if it is not: each connection's state, OOM, the eviction policy, lost data.
  const watch =
    redis === undefined
      ? undefined
      : new (await import('./config/redis-watch.ts')).RedisWatch({
          redis,
          log,
          registry: metricsRegistry,
          sentinelKey: `${env.RATE_LIMIT_PREFIX}:sentinel`,
          ...(review === undefined ? {} : { counts: () => review.counts() }),
        });
  if (watch !== undefined && review !== undefined) {
    for (const [role, client] of review.connections()) watch.watch(role, client);
    void review.blockingConnection().then((client) => client !== undefined && watch.watch('review-worker-blocking', client));
  }

  const app = await buildApp({
    tenants,
    serving,
    rateLimiter,
    ...(redis === undefined ? {} : { redis }),
    ...(watch === undefined
      ? {}
      : {
          redisDetail: () => ({
            ...(review === undefined ? {} : { redisPersistence: review.persistence() ?? 'unknown' }),
            ...watch.detail(),
          }),
        }),
    logger: log,
    bodyLimit: env.BODY_LIMIT,
    trustProxy: env.TRUST_PROXY,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    keyFailureRule: { max: env.KEY_FAILURE_MAX, windowMs: env.KEY_FAILURE_WINDOW_SECONDS * 1000, algorithm: 'fixed' },
    maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: env.MAX_EVENT_LOOP_UTILIZATION,
    maxVerifyInFlight: env.MAX_VERIFY_IN_FLIGHT,
    maxVerifyWaitMs: env.MAX_VERIFY_WAIT_MS,
    verifyTurnBudgetMs: env.VERIFY_TURN_BUDGET_MS,
    verifyAcceptFirstMs: env.VERIFY_ACCEPT_FIRST_MS,
    metricsRegistry,
    collectDefaultMetrics: true,
    ...(review === undefined
      ? {}
      : { reviewSink: review.sink, reviewRoutes: review.routes, reviewTraffic: review.traffic, accountLists: review.lists }),
    shadowSampleRate: env.SHADOW_SAMPLE_RATE,
    ...(redis === undefined ? {} : { shadowSink: new RedisShadowSink(redis, env.SHADOW_PREFIX, log) }),
  });

  // A worker's /metrics and /docs are the primary's admin server (service/workers.ts), over every worker's metrics.
  const admin =
    env.ADMIN_PORT === 'off' || workerSlot !== undefined ? undefined : await buildAdminApp(app, { logger: log.child({ server: 'admin' }) });
  return { app, admin, metricsRegistry, breaker, heartbeat, rateLimiter, review, watch };
}
