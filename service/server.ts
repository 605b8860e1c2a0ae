import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { buildAdminApp } from './admin.ts';
import { buildApp } from './app.ts';
import { loadClassifier } from '../core/classifier/load.ts';
import { ConfigError, parseEnv, type Env } from './config/env.ts';
import type { CheckedRedis } from './config/redis.ts';
import { createDestination, createLogger, guardedFlush } from './config/logger.ts';
import { chooseTenantsFile } from './config/tenants-file.ts';
import { MemoryRateLimiter } from './rate-limit/memory.ts';
import { RedisRateLimiter } from './rate-limit/redis.ts';
import { CircuitBreaker } from './resilience/breaker.ts';
import { TenantsError } from './tenants/compile.ts';
import { TenantsStore } from './tenants/store.ts';

/** How long start-up waits for Redis to answer before going on without it (its connect timeout). */
const REDIS_FIRST_CONNECTION_MS = 2000;

/** The only place that reads the environment and listens. */
async function main(env: Env): Promise<void> {
  const destination = createDestination();
  const flushLogs = guardedFlush(destination);
  const log = createLogger(env.LOG_LEVEL, destination);

  const choice = chooseTenantsFile(env);
  if (choice.example) log.warn({ tenantsFile: choice.file }, 'TENANTS_FILE is not set: using the example tenants file with its public demo key');
  const tenants = await TenantsStore.open(choice.file, log);
  tenants.watch();

  // Loads in the background from here on; a failure is handled once the server listens (below).
  const classifier = loadClassifier({ modelsDir: path.resolve(env.MODELS_DIR), ...(env.MODEL_VERSION === undefined ? {} : { version: env.MODEL_VERSION }) });
  classifier.catch(() => undefined);

  // ioredis and BullMQ load only with REDIS_URL: the embedded mode starts without them (~0.4 s less to ready).
  const redisUrl = env.REDIS_URL;
  let redis: CheckedRedis | undefined;
  if (redisUrl !== undefined) {
    const { createRedis, firstConnection } = await import('./config/redis.ts');
    redis = createRedis(redisUrl, log);
    // A database the server refuses is a configuration mistake: said once, at start-up. An unreachable Redis is
    // an outage the service runs through (limits in memory, review items spooled), so it does not stop start-up.
    const refused = await firstConnection(redis, REDIS_FIRST_CONNECTION_MS);
    if (refused !== undefined) {
      redis.disconnect();
      tenants.close();
      throw new ConfigError(refused.message);
    }
  }
  const metricsRegistry = new Registry();
  const breakerOpen = new Gauge({ name: 'formguard_redis_breaker_open', help: 'Whether calls to Redis go straight to their fallback (1) after a run of slow or failed ones', registers: [metricsRegistry] });
  // One breaker for the one Redis server: the rate limit, the failed-key guard and the review queue add.
  const breaker =
    redis === undefined
      ? undefined
      : new CircuitBreaker({
          failures: env.REDIS_BREAKER_FAILURES,
          callTimeoutMs: env.REDIS_BREAKER_TIMEOUT_MS,
          openMs: env.REDIS_BREAKER_OPEN_MS,
          probe: () => (redis as CheckedRedis).ping(),
          onChange: (state, reason) => {
            breakerOpen.set(state === 'open' ? 1 : 0);
            if (state === 'open') log.warn({ reason }, 'redis: circuit open; rate limits count in memory and review items go to the spool until Redis answers a probe');
            else log.info({ reason }, 'redis: circuit closed; Redis answers again');
          },
        });
  let lastLimiterWarn = 0;
  const rateLimiter =
    redis === undefined
      ? new MemoryRateLimiter()
      : new RedisRateLimiter(redis, {
          prefix: env.RATE_LIMIT_PREFIX,
          fallback: new MemoryRateLimiter(),
          ...(breaker === undefined ? {} : { breaker }),
          onError: (err) => {
            if (Date.now() - lastLimiterWarn < 10_000) return;
            lastLimiterWarn = Date.now();
            log.warn({ err }, 'redis rate limit failed; counting in this instance until Redis is back');
          },
        });
  if (redis === undefined) log.info('REDIS_URL is not set: rate limits are counted per process, and the review queue is off (no /review console)');

  const review =
    redisUrl === undefined
      ? undefined
      : (await import('./review/setup.ts')).startReview({ env: { ...env, REDIS_URL: redisUrl }, log, moderators: tenants, registry: metricsRegistry, ...(breaker === undefined ? {} : { breaker }) });

  const app = await buildApp({
    tenants,
    classifier,
    rateLimiter,
    ...(redis === undefined ? {} : { redis }),
    ...(review === undefined ? {} : { redisDetail: () => ({ redisPersistence: review.persistence() ?? 'unknown' }) }),
    logger: log,
    bodyLimit: env.BODY_LIMIT,
    trustProxy: env.TRUST_PROXY,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    keyFailureRule: { max: env.KEY_FAILURE_MAX, windowMs: env.KEY_FAILURE_WINDOW_SECONDS * 1000, algorithm: 'fixed' },
    maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: env.MAX_EVENT_LOOP_UTILIZATION,
    maxVerifyInFlight: env.MAX_VERIFY_IN_FLIGHT,
    maxVerifyWaitMs: env.MAX_VERIFY_WAIT_MS,
    metricsRegistry,
    collectDefaultMetrics: true,
    ...(review === undefined ? {} : { reviewSink: review.sink, reviewRoutes: review.routes }),
  });

  const admin = env.ADMIN_PORT === 'off' ? undefined : await buildAdminApp(app, { logger: log.child({ server: 'admin' }) });

  closeWithGrace({ delay: env.SHUTDOWN_GRACE_MS, logger: log }, async ({ signal, err }) => {
    if (err !== undefined) log.fatal({ err }, 'shutting down after an unexpected error');
    else log.info({ signal }, 'shutting down: finishing in-flight requests');
    await admin?.close();
    await app.close();
    await review?.close();
    await rateLimiter.close();
    breaker?.close();
    tenants.close();
    if (redis !== undefined) await redis.quit().catch(() => redis.disconnect());
    log.info('stopped');
    await flushLogs();
  });

  // The admin server first: a port it cannot have stops start-up before the public port takes traffic.
  if (admin !== undefined && env.ADMIN_PORT !== 'off') await listenAdmin(admin, env.ADMIN_PORT, env.ADMIN_HOST);
  if (admin === undefined) log.info('ADMIN_PORT is off: /metrics and /docs are served nowhere');
  await app.listen({ port: env.PORT, host: env.HOST });
  classifier.then(
    (c) => {
      log.info({ modelVersion: c.modelVersion, featureVersion: c.featureVersion }, 'model loaded; ready');
      // Exports from before digests still load (they served before); that they cannot be checked is said once.
      if (c.manifest.modelFiles === undefined) log.warn({ modelVersion: c.modelVersion }, 'model files carry no digests (an export from before they were recorded): a corrupted file would go unnoticed; retrain to add them');
    },
    async (err: unknown) => {
      log.fatal({ err }, 'model failed to load; stopping');
      await flushLogs();
      process.stderr.write(`formguard: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** ADMIN_PORT has a default, so a port already taken is explained by its variable's name, not only by the number. */
async function listenAdmin(admin: FastifyInstance, port: number, host: string): Promise<void> {
  try {
    await admin.listen({ port, host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
    throw new ConfigError(`ADMIN_PORT: cannot listen on ${host}:${port} for /metrics and /docs (${code}); set ADMIN_PORT to a free port, or to off`);
  }
}

try {
  await main(parseEnv());
} catch (err) {
  // Start-up errors (bad variable, bad tenants file) are for a person reading the terminal.
  if (err instanceof ConfigError || err instanceof TenantsError) {
    process.stderr.write(`formguard: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
