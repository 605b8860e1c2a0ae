import { randomUUID } from 'node:crypto';
import underPressure from '@fastify/under-pressure';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import cors from '../http/cors.ts';
import { internalErrorBody, ms } from '../http/bodies.ts';
import { lazyChildLoggerFactory } from '../http/lazy-request-logger.ts';
import { answer } from './answer.ts';
import { runChecks, type VerifyDeps } from './checks.ts';
import { verifyRouteSchema } from './json-schema.ts';
import type { VerifyRequest } from './schema.ts';
import type { Audit } from './audit.ts';
import type { VerifyOutcome } from './outcome.ts';

export interface VerifyPluginOptions {
  readonly deps: VerifyDeps;
  /** 503 when the event loop lags more than this (ms); 0 turns the check off. */
  readonly maxEventLoopDelayMs: number;
}

export const VERIFY_PATH = '/v1/verify';
/** The length formNotFoundBody cuts formId to; the log line keeps no more. */
const LOGGED_FORM_ID_CHARS = 200;

/** POST /v1/verify with its CORS, overload guard, metrics and log line, encapsulated to this route. */
const verifyPlugin: FastifyPluginAsync<VerifyPluginOptions> = async (app, opts) => {
  // request.log gets its child logger only when something logs through it (errors): the verify line does not.
  app.setChildLoggerFactory(lazyChildLoggerFactory);
  await app.register(cors, { path: VERIFY_PATH });
  if (opts.maxEventLoopDelayMs > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: opts.maxEventLoopDelayMs,
      // Returning a body makes under-pressure send it; returning nothing lets the request through.
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply) => {
        if (request.method === 'OPTIONS') return undefined;
        const submissionId = randomUUID();
        const processingTime = ms(reply.elapsedTime);
        request.audit = { outcome: 'overloaded', submissionId, processingTime };
        reply.code(503).header('retry-after', '5');
        return internalErrorBody(submissionId, processingTime);
      }) as unknown as () => void,
    });
  }

  // Callback style, not async: no promise and no extra microtask per answer.
  app.addHook('onResponse', (request, reply, done) => {
    const audit = request.audit;
    if (audit !== null) {
      app.metrics.observe(audit.outcome, reply.elapsedTime / 1000);
      if (audit.outcome === 'spam' || audit.outcome === 'legitimate') app.metrics.verdicts.inc({ status: audit.outcome });
      // The app logger plus the reqId that request.log would bind (Fastify's default label): the same line.
      app.log.info({ reqId: request.id, ...audit, statusCode: reply.statusCode }, 'verify');
    }
    done();
  });

  app.post<{ Body: VerifyRequest }>(VERIFY_PATH, { schema: verifyRouteSchema }, async (request, reply) => {
    const audit: Audit = (request.audit = { outcome: 'error' });
    let outcome: VerifyOutcome;
    try {
      outcome = await runChecks(opts.deps, request.body, request, audit);
    } finally {
      // formId only once the key is accepted (a caller may swap the fields, putting its key there), cut as the 404 cuts it.
      if (audit.accountId !== undefined) audit.formId = request.body.formId.slice(0, LOGGED_FORM_ID_CHARS);
    }
    return answer(reply, outcome, audit, request.body.formId);
  });
};

export default verifyPlugin;
