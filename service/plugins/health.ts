import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { ModelSlot } from '../verify/model-slot.ts';

export interface HealthOptions {
  readonly model: ModelSlot;
  readonly redis?: Redis | undefined;
  readonly redisTimeoutMs?: number;
}

async function redisAnswers(redis: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([redis.ping().then((r) => r === 'PONG', () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** /healthz: the process is up. /readyz: the model is loaded and Redis (when configured) answers. */
export default fp<HealthOptions>(
  async (app, opts) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const problems: string[] = [];
      const state = opts.model.state;
      if (state.kind === 'loading') problems.push('model is loading');
      if (state.kind === 'failed') problems.push('model failed to load');
      if (opts.redis !== undefined && !(await redisAnswers(opts.redis, opts.redisTimeoutMs ?? 1000))) problems.push('redis does not answer');
      if (problems.length > 0) return reply.code(503).send({ status: 'not-ready', problems });
      return { status: 'ready', modelVersion: opts.model.classifier?.modelVersion };
    });
  },
  { name: 'formguard-health', fastify: '5.x' },
);
