import cluster from 'node:cluster';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import { buildAdminApp, buildAdminServer } from './admin.ts';
import { buildApp } from './app.ts';
import { ServingFollower } from './models/serving-follower.ts';
import { RedisShadowSink } from './models/shadow.ts';
import { ConfigError, parseEnv, type Env } from './config/env.ts';
import type { RedisClient } from './config/redis-target.ts';
import { createDestination, createLogger, guardedFlush } from './config/logger.ts';
import { chooseTenantsFile } from './config/tenants-file.ts';
import { MemoryRateLimiter } from './rate-limit/memory.ts';
import { InstanceHeartbeat } from './rate-limit/instances.ts';
import { RedisRateLimiter } from './rate-limit/redis.ts';
import { CircuitBreaker } from './resilience/breaker.ts';
import { TenantsError } from './tenants/compile.ts';
import { TenantsStore } from './tenants/store.ts';
import { onDrainRequest, reportToPrimary, runPrimary, STARTUP_FAILED_EXIT_CODE, WORKER_SLOT_VARIABLE } from './workers.ts';

/** How long start-up waits for Redis to answer before going on without it (its connect timeout). */
const REDIS_FIRST_CONNECTION_MS = 2000;

/** Of SHUTDOWN_GRACE_MS, what closing the review queue, its worker and Redis may take after the jobs are saved. */
const REVIEW_CLOSE_RESERVE_MS = 4000;

/** With WORKERS > 1, the worker slot (1..WORKERS) this process fills; undefined for the primary or a single process. */
const workerSlot = cluster.isWorker ? Number(process.env[WORKER_SLOT_VARIABLE]) : undefined;

/** The only place that reads the environment and listens. */
async function main(env: Env): Promise<void> {
  const destination = createDestination();
  const flushLogs = guardedFlush(destination);
  const rootLog = createLogger(env.LOG_LEVEL, destination);
  // Which worker wrote a line: the workers share one stdout.
  const log = workerSlot === undefined ? rootLog : rootLog.child({ worker: workerSlot, pid: process.pid });

  const choice = chooseTenantsFile(env);
  if (choice.example)
    log.warn({ tenantsFile: choice.file }, 'TENANTS_FILE is not set: using the example tenants file with its public demo key');
  const tenants = await TenantsStore.open(choice.file, log);
  tenants.watch();

  // Loads in the background from here on (a failure is handled once the server listens, below), then follows
  // models/serving.json: a promote or rollback serves within seconds, without a restart.
  const serving = new ServingFollower({ modelsDir: path.resolve(env.MODELS_DIR), pinned: env.MODEL_VERSION, log });
  const classifier = serving.slot.loaded;
  classifier.catch(() => undefined);

  // ioredis and BullMQ load only with Redis configured: the embedded mode starts without them (~0.4 s less to ready).
  const target =
    env.REDIS_URL === undefined && env.REDIS_CLUSTER_NODES === undefined
      ? undefined
      : (await import('./config/redis-target.ts')).redisTarget(env);
  let redis: RedisClient | undefined;
  if (target?.kind === 'server') {
    const { createRedis, firstConnection } = await import('./config/redis.ts');
    const server = createRedis(target.url, log);
    redis = server;
    // A database the server refuses is a configuration mistake: said once, at start-up. An unreachable Redis is
    // an outage the service runs through (limits in memory, review items spooled), so it does not stop start-up.
    const refused = await firstConnection(server, REDIS_FIRST_CONNECTION_MS);
    if (refused !== undefined) {
      server.disconnect();
      tenants.close();
      serving.stop();
      throw new ConfigError(refused.message);
    }
  } else if (target?.kind === 'cluster') {
    const { createRedisClient, describeRedis } = await import('./config/redis-target.ts');
    redis = createRedisClient(target, log);
    log.info({ redis: describeRedis(target) }, 'using a Redis Cluster');
  }
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
      ? new MemoryRateLimiter()
      : new RedisRateLimiter(redis, {
          prefix: env.RATE_LIMIT_PREFIX,
          fallback: new MemoryRateLimiter(),
          ...(breaker === undefined ? {} : { breaker }),
          ...(heartbeat === undefined ? {} : { liveInstances: () => heartbeat.live }),
          onRestored: () => limitsRestored.inc(),
          onError: (err) => {
            if (Date.now() - lastLimiterWarn < 10_000) return;
            lastLimiterWarn = Date.now();
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

  let closing = false;
  const grace = env.SHUTDOWN_GRACE_MS;
  const closeOptions = {
    delay: grace,
    logger: log,
    // Out of time: flagged jobs still in memory are counted and logged before the exit, never lost unsaid.
    onTimeout: (delay: number) => {
      const dropped = review?.abandon() ?? 0;
      log.error(`killed by timeout (${delay}ms)`);
      // The asynchronous log may not be written before the exit: stderr is (synchronous on a pipe or a file).
      if (dropped > 0) process.stderr.write(`formguard: ${dropped} flagged review jobs dropped at shutdown (SHUTDOWN_GRACE_MS ran out)\n`);
    },
  };
  const closer = closeWithGrace(closeOptions, async ({ signal, err }) => {
    closing = true;
    const started = Date.now();
    // Connections closing now are no news.
    watch?.close();
    if (err !== undefined) log.fatal({ err }, 'shutting down after an unexpected error');
    else log.info({ signal }, 'shutting down: finishing in-flight requests');
    await admin?.close();
    await app.close();
    // The review jobs get what is left of the grace but the time the queue, the worker and Redis take to close.
    await review?.close(started + Math.max(grace / 2, grace - REVIEW_CLOSE_RESERVE_MS));
    await rateLimiter.close();
    await heartbeat?.close();
    breaker?.close();
    tenants.close();
    if (redis !== undefined) await redis.quit().catch(() => redis.disconnect());
    log.info('stopped');
    await flushLogs();
  });

  if (workerSlot !== undefined) {
    // The primary asks for a drain by message: it must not add a second signal to a Ctrl-C the worker already has.
    onDrainRequest(() => {
      if (!closing) void closer.close();
    });
    await app.ready();
    reportToPrimary(metricsRegistry, app.swagger());
  }
  // The admin server first: a port it cannot have stops start-up before the public port takes traffic.
  if (admin !== undefined && env.ADMIN_PORT !== 'off') await listenAdmin(admin, env.ADMIN_PORT, env.ADMIN_HOST);
  if (admin === undefined && env.ADMIN_PORT === 'off') log.info('ADMIN_PORT is off: /metrics and /docs are served nowhere');
  await app.listen({ port: env.PORT, host: env.HOST });
  classifier.then(
    (c) => {
      log.info({ modelVersion: c.modelVersion, featureVersion: c.featureVersion }, 'model loaded; ready');
      // Exports from before digests still load (they served before); that they cannot be checked is said once.
      if (c instanceof LinearClassifier && c.manifest.modelFiles === undefined)
        log.warn(
          { modelVersion: c.modelVersion },
          'model files carry no digests (an export from before they were recorded): a corrupted file would go unnoticed; retrain to add them',
        );
    },
    async (err: unknown) => {
      log.fatal({ err }, 'model failed to load; stopping');
      await flushLogs();
      process.stderr.write(`formguard: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(workerSlot === undefined ? 1 : STARTUP_FAILED_EXIT_CODE);
    },
  );
}

/** WORKERS > 1: this process forks the workers and serves their summed /metrics; it reads no request itself. */
function primary(env: Env): void {
  const destination = createDestination();
  const flushLogs = guardedFlush(destination);
  const log = createLogger(env.LOG_LEVEL, destination).child({ role: 'primary', pid: process.pid });
  const adminPort = env.ADMIN_PORT;
  if (adminPort === 'off') log.info('ADMIN_PORT is off: /metrics and /docs are served nowhere');
  runPrimary({
    workers: env.WORKERS,
    log,
    graceMs: env.SHUTDOWN_GRACE_MS,
    ...(adminPort === 'off'
      ? {}
      : {
          startAdmin: async (metrics, document) => {
            const admin = await buildAdminServer(metrics, document, { logger: log.child({ server: 'admin' }) });
            await listenAdmin(admin, adminPort, env.ADMIN_HOST).catch(async (err: unknown) => {
              await admin.close();
              if (err instanceof ConfigError) process.stderr.write(`formguard: ${err.message}\n`);
              throw err;
            });
            return admin;
          },
        }),
    exit: async (code) => {
      await flushLogs();
      process.exit(code);
    },
  });
}

/** ADMIN_PORT has a default, so a port already taken is explained by its variable's name, not only by the number. */
async function listenAdmin(admin: FastifyInstance, port: number, host: string): Promise<void> {
  try {
    await admin.listen({ port, host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
    throw new ConfigError(
      `ADMIN_PORT: cannot listen on ${host}:${port} for /metrics and /docs (${code}); set ADMIN_PORT to a free port, or to off`,
    );
  }
}

try {
  const env = parseEnv();
  if (env.WORKERS > 1 && cluster.isPrimary) primary(env);
  else await main(env);
} catch (err) {
  // Start-up errors (bad variable, bad tenants file) are for a person reading the terminal.
  if (err instanceof ConfigError || err instanceof TenantsError) {
    process.stderr.write(`formguard: ${err.message}\n`);
    // A worker's start-up failure would fail again on a restart: its code tells the primary to stop instead.
    process.exit(workerSlot === undefined ? 1 : STARTUP_FAILED_EXIT_CODE);
  }
  throw err;
}
