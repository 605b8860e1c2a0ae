import fp from 'fastify-plugin';
import type { RedisClient } from '../config/redis-target.ts';
import { Gauge } from 'prom-client';
import type { ModelSlot } from '../verify/model-slot.ts';

/** A Redis client; the service's (CheckedRedis, config/redis.ts) also says why it dropped its last connection. */
export type HealthRedis = RedisClient & { readonly databaseError?: { readonly message: string } | undefined };

export interface HealthOptions {
  readonly model: ModelSlot;
  readonly redis?: HealthRedis | undefined;
  readonly redisTimeoutMs?: number;
  /** More to say about Redis in /readyz (its persistence), without making the instance unready. */
  readonly redisDetail?: (() => Record<string, unknown>) | undefined;
}

async function redisAnswers(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([
      redis.ping().then(
        (r) => r === 'PONG',
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `redis` up or down; down for a refused database also says why, since waiting will not mend it. */
async function redisHealth(redis: HealthRedis, timeoutMs: number): Promise<{ redis: 'up' } | { redis: 'down'; redisError?: string }> {
  if (await redisAnswers(redis, timeoutMs)) return { redis: 'up' };
  const refused = redis.databaseError;
  return refused === undefined ? { redis: 'down' } : { redis: 'down', redisError: refused.message };
}

/**
 * /healthz: the process is up. /readyz: the model is loaded, so verify answers; it names the active and shadow models,
 * and lists under `problems` a model the serving record names that could not be loaded (still ready: another serves). Redis (when configured) is reported
 * in the body and as formguard_redis_up, but does not make the instance unready: without it the instance still
 * classifies (rate limits count in memory, review items go to the spool), and a shared Redis that fails would
 * otherwise take every instance out of the load balancer at once.
 */
export default fp<HealthOptions>(
  async (app, opts) => {
    const redis = opts.redis;
    const timeoutMs = opts.redisTimeoutMs ?? 1000;
    if (redis !== undefined) {
      new Gauge({
        name: 'formguard_redis_up',
        help: 'Whether Redis answered a PING at scrape time (1) or not (0); without it limits are per instance',
        registers: [app.metrics.registry],
        // Summed over workers it would count them; any worker without Redis makes it 0.
        aggregator: 'min',
        async collect() {
          this.set((await redisAnswers(redis, timeoutMs)) ? 1 : 0);
        },
      });
    }

    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const problems: string[] = [];
      const state = opts.model.state;
      if (state.kind === 'loading') problems.push('model is loading');
      if (state.kind === 'failed') problems.push('model failed to load');
      const redisState = redis === undefined ? {} : { ...(await redisHealth(redis, timeoutMs)), ...opts.redisDetail?.() };
      if (problems.length > 0)
        return reply.code(503).send({ status: 'not-ready', problems: [...problems, ...opts.model.problems], ...redisState });
      // A model the record names that cannot be loaded leaves the current one serving: ready, with the problem said.
      const later = opts.model.problems;
      return {
        status: 'ready',
        modelVersion: opts.model.classifier?.modelVersion,
        shadowVersion: opts.model.shadow?.modelVersion ?? null,
        ...(later.length > 0 ? { problems: later } : {}),
        ...redisState,
      };
    });
  },
  { name: 'formguard-health', fastify: '5.x', dependencies: ['formguard-metrics'] },
);
