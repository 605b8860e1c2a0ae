import cluster from 'node:cluster';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import { buildAdminServer } from './admin.ts';
import { composeService } from './compose.ts';
import { ServingFollower } from './models/serving-follower.ts';
import { ConfigError, parseEnv, type Env } from './config/env.ts';
import type { RedisClient } from './config/redis-target.ts';
import { createDestination, createLogger, guardedFlush } from './config/logger.ts';
import { chooseTenantsFile } from './config/tenants-file.ts';
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
  const { app, admin, metricsRegistry, breaker, heartbeat, rateLimiter, review, watch } = await composeService({
    env,
    log,
    tenants,
    serving,
    ...(redis === undefined || target === undefined ? {} : { redis: { client: redis, target } }),
    ...(workerSlot === undefined ? {} : { workerSlot }),
  });

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
      if (!closing) closer.close();
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
