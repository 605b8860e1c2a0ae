import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Classifier } from '../core/classifier/types.ts';
import type { TrustProxy } from './config/env.ts';
import { plainErrorBody } from './http/bodies.ts';
import { createClientErrorHandler, createErrorHandler, createFrameworkErrorHandler } from './verify/error-handler.ts';
import { useJsonBodyParser } from './http/json-body.ts';
import { openApi } from './plugins/docs.ts';
import drain from './plugins/drain.ts';
import health, { type HealthRedis } from './plugins/health.ts';
import metrics from './plugins/metrics.ts';
import { MemoryRateLimiter } from './rate-limit/memory.ts';
import { CONSOLE_PREFIX } from './review/console/headers.ts';
import type { RateLimiter, RateRule } from './rate-limit/types.ts';
import type { ReviewSink } from './review/intake/job-schema.ts';
import type { TrafficRecorder } from './review/dashboard/traffic.ts';
import type { TenantsSource } from './tenants/store.ts';
import { keySetEpoch } from './tenants/key-set.ts';
import { KeyGuard } from './verify/key-guard.ts';
import type { ServingFollower } from './models/serving-follower.ts';
import { ENV_DEFAULTS } from './config/env.ts';
import { shadowMetrics, type ShadowSink } from './models/shadow.ts';
import { ModelSlot } from './verify/model-slot.ts';
import verify from './verify/plugin.ts';
import type { ListLookup } from './verify/lists.ts';

export interface AppDeps {
  readonly tenants: TenantsSource;
  /** The loaded model, or its loading promise: the app answers 503 (verify, /readyz) until it resolves. */
  readonly classifier?: Classifier | Promise<Classifier>;
  /** Instead of `classifier`: the models the serving record names, followed as it changes (stopped on close). */
  readonly serving?: ServingFollower;
  /** Default: in-memory (one process). With REDIS_URL the server passes a RedisRateLimiter. */
  readonly rateLimiter?: RateLimiter;
  /** Only for /readyz and formguard_redis_up; the caller owns and closes it. */
  readonly redis?: HealthRedis;
  /** More about Redis for /readyz (e.g. its persistence). */
  readonly redisDetail?: () => Record<string, unknown>;
  readonly logger?: Logger | boolean;
  readonly bodyLimit?: number;
  /** TRUST_PROXY as parsed: false, true (every hop), { hops } or { proxies }. */
  readonly trustProxy?: TrustProxy;
  /** Time allowed to receive a whole request (headers and body), in ms; 0 turns it off. */
  readonly requestTimeoutMs?: number;
  /** Failed API-key checks allowed per client IP and window. */
  readonly keyFailureRule?: RateRule;
  readonly maxEventLoopDelayMs?: number;
  /** Share of time the event loop may be busy (0 to 1) before verify sheds; 0 turns the check off. */
  readonly maxEventLoopUtilization?: number;
  /** Verify requests worked on at once; the next ones wait (body unread) for a slot; 0: no limit. */
  readonly maxVerifyInFlight?: number;
  /** Longest a verify request waits for one of those before it is shed (ms). */
  readonly maxVerifyWaitMs?: number;
  /** Verify work (ms) one event-loop turn may do; the rest waits for the next turn. */
  readonly verifyTurnBudgetMs?: number;
  /** After a turn that accepted a connection, verify work waits up to this long (ms) for the next turns; 0: off. */
  readonly verifyAcceptFirstMs?: number;
  readonly metricsRegistry?: Registry;
  readonly collectDefaultMetrics?: boolean;
  readonly reviewSink?: ReviewSink;
  /** Share of verified submissions the shadow model (if the serving record names one) also scores; default 0.1. */
  readonly shadowSampleRate?: number;
  /** Where shadow pairs are counted beyond /metrics (Redis, shared by every instance). */
  readonly shadowSink?: ShadowSink;
  /** Counts verify outcomes for the review console's dashboard (in memory; sent to Redis off the response path). */
  readonly reviewTraffic?: TrafficRecorder;
  /** The accounts' allow and block lists the verify route honours (review mode: review/lists/cache.ts). */
  readonly accountLists?: ListLookup;
  /** Moderator console, mounted under /review when given. */
  readonly reviewRoutes?: FastifyPluginAsync;
}

/** KEY_FAILURE_MAX and KEY_FAILURE_WINDOW_SECONDS at their defaults. */
const DEFAULT_KEY_FAILURE_RULE: RateRule = Object.freeze({
  max: ENV_DEFAULTS.KEY_FAILURE_MAX,
  windowMs: ENV_DEFAULTS.KEY_FAILURE_WINDOW_SECONDS * 1000,
  algorithm: 'fixed',
});
/**
 * How often event-loop delay and utilisation are sampled: as often as the delay limit, so a burst is seen within it.
 * Not more often: a sample with no timer tick in it (the loop blocked throughout) reads as an infinite delay, which
 * is only true of a block longer than the limit.
 */
function pressureSampleMs(maxDelayMs: number): number {
  return Math.min(1000, Math.max(100, maxDelayMs));
}
/** A verify request still waiting for its body after this stops counting against MAX_VERIFY_IN_FLIGHT. */
const STALLED_BODY_MS = 1000;

/** TRUST_PROXY in the form Fastify's trustProxy option takes. */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'boolean') return trust;
  // Fastify 5 ignores a numeric trustProxy (it trusts nothing), so a hop count is given as its trust function.
  if ('hops' in trust) return (_address, hop) => hop < trust.hops;
  return [...trust.proxies];
}

/**
 * Every option left out takes its environment variable's default (ENV_DEFAULTS): an app built here runs with the
 * limits `npm start` runs with.
 *
 * Builds the public service (verify, health, the review console); never listens (server.ts does), so tests drive it
 * with app.inject. Its metrics and OpenAPI description are served by the admin server (buildAdminApp, admin.ts).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const bodyLimit = deps.bodyLimit ?? ENV_DEFAULTS.BODY_LIMIT;
  const requestTimeout = deps.requestTimeoutMs ?? ENV_DEFAULTS.REQUEST_TIMEOUT_MS;
  const errorHandler = createErrorHandler(bodyLimit);
  const app = Fastify({
    bodyLimit,
    trustProxy: trustProxyOption(deps.trustProxy ?? ENV_DEFAULTS.TRUST_PROXY),
    // A client that sends part of a request and stops is answered 408 and let go instead of holding a socket.
    requestTimeout,
    // Node swaps the two when headersTimeout (60 s) is larger, which would leave a stalled body 60 s; and it checks
    // them only every connectionsCheckingInterval (30 s by default), so a short timeout would fire late.
    ...(requestTimeout > 0
      ? {
          http: {
            headersTimeout: Math.min(60_000, requestTimeout),
            connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(requestTimeout / 2))),
          },
        }
      : {}),
    // Malformed HTTP and timeouts, which never become requests, and URLs the router cannot decode: spec bodies too.
    clientErrorHandler: createClientErrorHandler(),
    frameworkErrors: createFrameworkErrorHandler(errorHandler),
    ...(typeof deps.logger === 'object' ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: deps.logger ?? false }),
    // One line per verify request is written by the verify plugin instead.
    logController: new LogController({ disableRequestLogging: true }),
    // Strict types: "apiKey": 123 is a 400, not the key "123".
    ajv: { customOptions: { coerceTypes: false, allErrors: false } },
    // Requests that arrive while the server closes get the service's own answers (Fastify's is a bare 503 in
    // none of the spec's shapes); the drain plugin closes their connections.
    return503OnClosing: false,
  });

  if ((deps.classifier === undefined) === (deps.serving === undefined))
    throw new TypeError('buildApp needs a classifier or a serving follower, not both');
  const model = deps.serving?.slot ?? new ModelSlot(deps.classifier as Classifier | Promise<Classifier>);
  const rateLimiter = deps.rateLimiter ?? new MemoryRateLimiter();
  const keyGuard = new KeyGuard(rateLimiter, deps.keyFailureRule ?? DEFAULT_KEY_FAILURE_RULE, Date.now, () =>
    keySetEpoch(deps.tenants.current),
  );
  if (deps.rateLimiter === undefined) app.addHook('onClose', () => rateLimiter.close());

  // JSON only: the spec's one content type, in UTF-8; anything else is a 415, not a 400.
  app.removeContentTypeParser(['text/plain']);
  useJsonBodyParser(app);
  app.decorateRequest('audit', null);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(plainErrorBody(`Route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)} not found`)),
  );

  await app.register(drain);
  await app.register(metrics, { registry: deps.metricsRegistry, collectDefault: deps.collectDefaultMetrics ?? false });
  await app.register(openApi);
  await app.register(health, { model, redis: deps.redis, redisDetail: deps.redisDetail });
  await app.register(verify, {
    deps: {
      tenants: deps.tenants,
      limiter: rateLimiter,
      keyGuard,
      model,
      reviewSink: deps.reviewSink,
      traffic: deps.reviewTraffic,
      lists: deps.accountLists,
      shadow: {
        sampleRate: deps.shadowSampleRate ?? ENV_DEFAULTS.SHADOW_SAMPLE_RATE,
        metrics: shadowMetrics(app.metrics.registry),
        sink: deps.shadowSink,
      },
      log: app.log,
    },
    maxEventLoopDelayMs: deps.maxEventLoopDelayMs ?? ENV_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: deps.maxEventLoopUtilization ?? ENV_DEFAULTS.MAX_EVENT_LOOP_UTILIZATION,
    maxInFlight: deps.maxVerifyInFlight ?? ENV_DEFAULTS.MAX_VERIFY_IN_FLIGHT,
    maxWaitMs: deps.maxVerifyWaitMs ?? ENV_DEFAULTS.MAX_VERIFY_WAIT_MS,
    turnBudgetMs: deps.verifyTurnBudgetMs ?? ENV_DEFAULTS.VERIFY_TURN_BUDGET_MS,
    acceptFirstMs: deps.verifyAcceptFirstMs ?? ENV_DEFAULTS.VERIFY_ACCEPT_FIRST_MS,
    pressureSampleMs: pressureSampleMs(deps.maxEventLoopDelayMs ?? ENV_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS),
    stallMs: STALLED_BODY_MS,
  });
  if (deps.reviewRoutes !== undefined) await app.register(deps.reviewRoutes, { prefix: CONSOLE_PREFIX });

  const showModels = () => {
    app.metrics.model.reset();
    for (const [role, c] of [
      ['active', model.classifier],
      ['shadow', model.shadow],
    ] as const) {
      if (c !== undefined) app.metrics.model.set({ version: c.modelVersion, feature_version: c.featureVersion, role }, 1);
    }
  };
  model.loaded.then(showModels, (err: unknown) => app.log.error({ err }, 'model failed to load'));
  const serving = deps.serving;
  if (serving !== undefined) {
    const off = serving.onEvent((e) => {
      if (e.kind === 'changed') showModels();
      else app.metrics.modelLoadFailures.inc({ version: e.version });
    });
    app.addHook('onClose', async () => {
      off();
      serving.stop();
    });
  }
  return app;
}
