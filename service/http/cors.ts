import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export interface CorsOptions {
  /** Path whose preflight is answered. */
  readonly path: string;
}

/** What every verify answer carries, also those Fastify gives before any hook runs (an undecodable URL). */
export function addCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  // Vary on every answer: the answer depends on Origin, even when this request had none.
  reply.header('vary', 'Origin');
  const origin = request.headers.origin;
  if (origin !== undefined) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', 'Retry-After');
  }
}

/**
 * Browser forms call verify directly: any origin may ask (the per-form referrer list is the real gate), and every
 * answer to a request with an Origin header is readable by that page, error and blocked bodies included.
 */
export default fp<CorsOptions>(
  async (app, opts) => {
    // Callback style, not async: no promise and no extra microtask per request.
    app.addHook('onRequest', (request, reply, done) => {
      addCorsHeaders(request, reply);
      done();
    });

    app.options(opts.path, { schema: { hide: true } }, async (_request, reply) => {
      reply
        .code(204)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'Content-Type')
        .header('access-control-max-age', '86400')
        .send();
    });
  },
  { name: 'formguard-cors', fastify: '5.x' },
);
