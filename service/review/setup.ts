import type { Worker } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import { Gauge, register as defaultRegistry, type Registry } from 'prom-client';
import { ENV_DEFAULTS, type Env, type RedisNode } from '../config/env.ts';
import { queuePrefix, redisTarget, type RedisClient, type RedisTarget } from '../config/redis-target.ts';
import type { ModeratorSource } from './console/auth.ts';
import { commandConnection, workerConnection } from './connection.ts';
import type { ReviewJob, ReviewSink } from './intake/job-schema.ts';
import { reviewMetrics } from './metrics.ts';
import { ingestWorker, reviewQueue } from './intake/queue.ts';
import { reviewRoutes } from './console/routes.ts';
import { SessionStore } from './console/sessions.ts';
import { QueueReviewSink } from './intake/sink.ts';
import { ReviewSpool } from './intake/spool.ts';
import { ReviewStore } from './store/review-store.ts';
import { REMEMBER_MAX_WAITING } from './store/items.ts';
import { PersistenceWatch, type Persistence } from './persistence.ts';
import type { CircuitBreaker } from '../resilience/breaker.ts';
import type { Queue } from 'bullmq';
import { TrafficCounter } from './dashboard/traffic.ts';
import type { ReviewPolicy } from './intake/policy.ts';
import { openRedis } from '../config/redis-target.ts';
import { ListsCache } from './lists/cache.ts';
import { ListsStore } from './lists/store.ts';

export const SESSION_TTL_SECONDS = 12 * 3600;
const SWEEP_INTERVAL_MS = 3_600_000;

/** One Redis server or a cluster's seed nodes (exactly one of the two). */
export type ReviewRedisEnv =
  | { readonly REDIS_URL: string; readonly REDIS_CLUSTER_NODES?: undefined }
  | { readonly REDIS_CLUSTER_NODES: readonly RedisNode[]; readonly REDIS_URL?: undefined };

export type ReviewEnv = ReviewRedisEnv &
  Pick<
    Env,
    | 'REVIEW_BAND'
    | 'REVIEW_SAMPLE_RATE'
    | 'REVIEW_RETENTION_DAYS'
    | 'REVIEW_KEEP_FIELDS_DAYS'
    | 'REVIEW_SPOOL_DIR'
    | 'REVIEW_SPOOL_MAX_BYTES'
    | 'REVIEW_MAX_FIELD_BYTES'
    | 'BULLMQ_PREFIX'
  > &
  Partial<
    Pick<
      Env,
      | 'REVIEW_CAMPAIGN_WINDOW_SECONDS'
      | 'REVIEW_MAX_PENDING'
      | 'REVIEW_NEAR_GROUPS_MAX'
      | 'REVIEW_NEAR_MEMBERS_MAX'
      | 'REVIEW_KEEP_FIELDS_MAX'
      | 'REVIEW_LOOKUP_MAX'
      | 'REVIEW_MAX_LABELLED'
      | 'LISTS_MAX_ENTRIES'
      | 'LISTS_CHECK_MS'
    >
  >;

export interface Review {
  readonly sink: QueueReviewSink;
  readonly routes: FastifyPluginAsync;
  readonly store: ReviewStore;
  /** Counts verify outcomes per account, form and day for the dashboard (the verify route records into it). */
  readonly traffic: TrafficCounter;
  /** The accounts' allow and block lists: in Redis (managed from the console), and this instance's copy the verify route reads. */
  readonly listsStore: ListsStore;
  readonly lists: ListsCache;
  /** Redis persistence found at the last (re)connection: whether review items survive a Redis restart. */
  persistence(): Persistence | undefined;
  /**
   * Stops queueing (flushing what was offered to the queue or the spool), the worker and the connections. With
   * `deadline` (a Date.now() time), jobs still in memory then are counted as dropped and logged (a shutdown's limit).
   */
  close(deadline?: number): Promise<void>;
  /** The review side's Redis connections by role, for their state in /readyz, the metrics and the log. */
  connections(): ReadonlyArray<readonly [string, RedisClient]>;
  /** BullMQ's blocking copy of the worker's connection, once open (undefined without a worker). */
  blockingConnection(): Promise<RedisClient | undefined>;
  /** The review queue's jobs by state (waiting, delayed, active, failed, prioritized). */
  counts(): Promise<Record<string, number>>;
  /** The process exits now: counts and logs every flagged job still in memory (see QueueReviewSink.abandon); how many. */
  abandon(): number;
}

export interface ReviewSetup {
  readonly env: ReviewEnv;
  readonly log: Logger;
  readonly moderators: ModeratorSource;
  /** The service's metrics registry (prom-client's default one when absent). */
  readonly registry?: Registry;
  /** Run the ingest worker in this process (default true). */
  readonly worker?: boolean;
  readonly random?: () => number;
  /** An account's own review band, sample rate and kept-fields cap (the tenants file's `review`). */
  readonly accountPolicy?: (accountId: string) => (Partial<ReviewPolicy> & { readonly keepFieldsMax?: number | undefined }) | undefined;
  /** The service's Redis circuit breaker: while open, jobs go to the spool without waiting on Redis. */
  readonly breaker?: CircuitBreaker;
}

/**
 * Builds the whole review side from the environment: the sink the verify route offers verdicts to, the
 * ingest worker, the retention sweep and the /review console.
 */
export function startReview(setup: ReviewSetup): Review {
  const { env, log } = setup;
  const target = redisTarget(env) as RedisTarget;
  const redis = commandConnection(target, log);
  const metrics = reviewMetrics(setup.registry);
  // The store's keys carry a hash tag per account (store/keys.ts); the queue's need one for the whole queue on a cluster.
  const store = new ReviewStore(redis, {
    prefix: env.BULLMQ_PREFIX,
    retentionDays: env.REVIEW_RETENTION_DAYS,
    keepFieldsDays: env.REVIEW_KEEP_FIELDS_DAYS,
    campaignWindowMs: (env.REVIEW_CAMPAIGN_WINDOW_SECONDS ?? ENV_DEFAULTS.REVIEW_CAMPAIGN_WINDOW_SECONDS) * 1000,
    maxPending: env.REVIEW_MAX_PENDING ?? ENV_DEFAULTS.REVIEW_MAX_PENDING,
    nearGroupsMax: env.REVIEW_NEAR_GROUPS_MAX ?? ENV_DEFAULTS.REVIEW_NEAR_GROUPS_MAX,
    nearMembersMax: env.REVIEW_NEAR_MEMBERS_MAX ?? ENV_DEFAULTS.REVIEW_NEAR_MEMBERS_MAX,
    onEvicted: (n) => metrics.evicted.inc(n),
    onShed: (n) => metrics.shed.inc({ reason: 'queue_full' }, n),
    keepFieldsMax: env.REVIEW_KEEP_FIELDS_MAX ?? ENV_DEFAULTS.REVIEW_KEEP_FIELDS_MAX,
    keepFieldsMaxFor: (accountId) => setup.accountPolicy?.(accountId)?.keepFieldsMax,
    lookupMax: env.REVIEW_LOOKUP_MAX ?? ENV_DEFAULTS.REVIEW_LOOKUP_MAX,
    maxLabelled: env.REVIEW_MAX_LABELLED ?? ENV_DEFAULTS.REVIEW_MAX_LABELLED,
    onLabelsOverCap: (accountId, count) =>
      log.warn(
        { accountId, labelledOverCap: count, maxLabelled: env.REVIEW_MAX_LABELLED ?? ENV_DEFAULTS.REVIEW_MAX_LABELLED },
        'review: labelled items past REVIEW_MAX_LABELLED are kept because their labels are not exported yet; run npm run labels:export',
      ),
  });
  const policy: ReviewPolicy = { band: env.REVIEW_BAND, sampleRate: env.REVIEW_SAMPLE_RATE };
  const policyFor = (accountId: string): ReviewPolicy => {
    const own = setup.accountPolicy?.(accountId);
    return { band: own?.band ?? policy.band, sampleRate: own?.sampleRate ?? policy.sampleRate };
  };
  const traffic = new TrafficCounter(redis, store.keys, store.retentionMs, log);
  const bullPrefix = queuePrefix(env.BULLMQ_PREFIX, target);
  const queue = reviewQueue(redis, bullPrefix);
  queue.on('error', (err) => log.debug({ err: err.message }, 'review queue error'));
  const sink = new QueueReviewSink({
    queue,
    connection: redis,
    spool: new ReviewSpool(env.REVIEW_SPOOL_DIR, env.REVIEW_SPOOL_MAX_BYTES, log),
    policy,
    ...(setup.accountPolicy === undefined ? {} : { accountPolicy: setup.accountPolicy }),
    maxFieldBytes: env.REVIEW_MAX_FIELD_BYTES,
    retentionMs: store.retentionMs,
    metrics,
    log,
    remember: (job) => store.items.remember(job),
    // Flagged jobs go to the store in batches, straight from the sink; the queue carries the spool's replays.
    ingest: (jobs) => store.items.ingestMany(jobs),
    ...(setup.breaker === undefined ? {} : { breaker: setup.breaker }),
    ...(setup.random === undefined ? {} : { random: setup.random }),
  });
  waitingGauges(setup.registry ?? defaultRegistry, sink, store);
  let workerRedis: RedisClient | undefined;
  let worker: Worker<ReviewJob> | undefined;
  let blocking: Promise<RedisClient | undefined> = Promise.resolve(undefined);
  if (setup.worker !== false) {
    workerRedis = workerConnection(target, log);
    worker = ingestWorker(workerRedis, bullPrefix, store, log);
    // BullMQ's own copy of the connection for its blocking reads: the one that, lost, stops the worker taking jobs.
    type Holder = { blockingConnection?: { client: Promise<RedisClient> } };
    const holder = worker as unknown as Holder & { backend?: Holder };
    const copy = holder.backend?.blockingConnection ?? holder.blockingConnection;
    blocking = copy === undefined ? blocking : copy.client.catch(() => undefined);
  }
  const sweep = () =>
    void store.retention
      .sweep()
      .then((n) => n > 0 && log.info({ removed: n }, 'review: retention sweep'))
      .catch((err: unknown) => log.debug({ err }, 'review: retention sweep skipped'));
  redis.once('ready', sweep);
  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
  sweeper.unref();
  const listsStore = new ListsStore(redis, store.keys, env.LISTS_MAX_ENTRIES ?? ENV_DEFAULTS.LISTS_MAX_ENTRIES);
  // A connection of its own for SUBSCRIBE; it waits for Redis (offline queue) and resubscribes after a reconnect.
  const listsSubscriber = openRedis(target, {
    connectionName: 'formguard-lists',
    maxRetriesPerRequest: null,
    connectTimeout: 2_000,
    retryDelayMs: (attempt) => Math.min(attempt * 200, 2_000),
  });
  listsSubscriber.on('error', (err: Error) => log.debug({ err: err.message }, 'lists: subscriber connection error'));
  const lists = new ListsCache({
    store: listsStore,
    subscriber: listsSubscriber,
    log,
    ...(setup.registry === undefined ? {} : { registry: setup.registry }),
    checkMs: env.LISTS_CHECK_MS ?? ENV_DEFAULTS.LISTS_CHECK_MS,
  });
  void lists.start();
  const persistence = new PersistenceWatch(redis, log, setup.registry);
  const routes = reviewRoutes({
    store,
    sessions: new SessionStore(redis, store.keys, SESSION_TTL_SECONDS),
    moderators: setup.moderators,
    log,
    policyFor,
    keepFieldsDays: env.REVIEW_KEEP_FIELDS_DAYS,
    retentionDays: env.REVIEW_RETENTION_DAYS,
    maxFieldBytes: env.REVIEW_MAX_FIELD_BYTES,
    lists: listsStore,
  });
  log.info(
    { band: env.REVIEW_BAND, sampleRate: env.REVIEW_SAMPLE_RATE, retentionDays: env.REVIEW_RETENTION_DAYS },
    'review queue is on (console at /review when moderators are configured)',
  );
  return {
    sink,
    routes,
    store,
    traffic,
    listsStore,
    lists,
    persistence: () => persistence.mode,
    abandon: () => sink.abandon(),
    connections: () => [['review', redis] as const, ...(workerRedis === undefined ? [] : [['review-worker', workerRedis] as const])],
    blockingConnection: () => blocking,
    counts: () => queue.getJobCounts('waiting', 'delayed', 'active', 'failed', 'prioritized'),
    async close(deadline?: number) {
      clearInterval(sweeper);
      persistence.close();
      await sink.close(deadline);
      await traffic.close();
      await lists.close();
      await closeQuietly(worker, queue);
      redis.disconnect();
      workerRedis?.disconnect();
    },
  };
}

/**
 * What this process holds in memory on its way to Redis (or the spool): the work after the answer not done yet, what
 * a benchmark waits for, and what a shutdown must spool or count.
 */
function waitingGauges(registry: Registry, sink: QueueReviewSink, store: ReviewStore): void {
  const gauge = (name: string, help: string, value: () => number) => {
    // A review side started again on one registry reports its own sink.
    if (registry.getSingleMetric(name) !== undefined) registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  };
  gauge(
    'formguard_review_waiting',
    'Flagged review jobs held in memory on their way to the review store or the local spool',
    () => sink.waiting,
  );
  gauge(
    'formguard_review_lookup_waiting',
    `Unqueued submissions held in memory on their way to the look-up store (past ${REMEMBER_MAX_WAITING} one is skipped and counted)`,
    () => store.items.rememberWaiting,
  );
}

async function closeQuietly(worker: Worker<ReviewJob> | undefined, queue: Queue<ReviewJob>): Promise<void> {
  await Promise.race([Promise.allSettled([worker?.close(), queue.close()]), new Promise((r) => setTimeout(r, 3_000).unref())]);
}

export type { ReviewSink };
