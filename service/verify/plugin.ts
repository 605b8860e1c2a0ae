import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import underPressure from '@fastify/under-pressure';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import cors from '../http/cors.ts';
import { internalErrorBody, ms } from '../http/bodies.ts';
import { lazyChildLoggerFactory } from '../http/lazy-request-logger.ts';
import { Admission, type Ticket } from './admission.ts';
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
  /** 503 when the event loop was busy more than this share of the last sample (0 to 1); 0 turns the check off. */
  readonly maxEventLoopUtilization?: number;
  /** How often the event-loop figures are sampled (ms). */
  readonly pressureSampleMs?: number;
  /** Verify requests worked on at once, others waiting (0: no limit), and when a stalled body stops counting. */
  readonly maxInFlight: number;
  readonly stallMs: number;
  /** Longest a verify request waits for a slot before it is shed (ms). */
  readonly maxWaitMs: number;
  /** Verify work (ms) per event-loop turn before the rest waits for the next turn. */
  readonly turnBudgetMs: number;
  /** After a turn that accepted a connection, verify work waits up to this long for the next turns (0: off). */
  readonly acceptFirstMs: number;
}

/** Where an admitted verify request's ticket rides on its response, for the response's 'close' listener. */
const TICKET = Symbol('verifyTicket');
type TicketedResponse = ServerResponse & { [TICKET]?: Ticket };

/** Requests waiting for a slot at once, at most: each holds only its socket (its body is not read). */
const MAX_WAITING = 10_000;

export const VERIFY_PATH = '/v1/verify';
/** The length formNotFoundBody cuts formId to; the log line keeps no more. */
const LOGGED_FORM_ID_CHARS = 200;

/** POST /v1/verify with its CORS, overload guard, metrics and log line, encapsulated to this route. */
const verifyPlugin: FastifyPluginAsync<VerifyPluginOptions> = async (app, opts) => {
  // request.log gets its child logger only when something logs through it (errors): the verify line does not.
  app.setChildLoggerFactory(lazyChildLoggerFactory);
  await app.register(cors, { path: VERIFY_PATH });
  // Shed in onRequest, before the body is read: under load the excess costs a 503, not a parse and a classification.
  const shed = (request: FastifyRequest, reply: FastifyReply) => {
    const submissionId = randomUUID();
    const processingTime = ms(reply.elapsedTime);
    request.audit = { outcome: 'overloaded', submissionId, processingTime };
    reply.code(503).header('retry-after', '5');
    return internalErrorBody(submissionId, processingTime);
  };
  const maxElu = opts.maxEventLoopUtilization ?? 0;
  if (opts.maxEventLoopDelayMs > 0 || maxElu > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: opts.maxEventLoopDelayMs,
      maxEventLoopUtilization: maxElu,
      sampleInterval: opts.pressureSampleMs ?? 1000,
      // Returning a body makes under-pressure send it; returning nothing lets the request through.
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply) =>
        request.method === 'OPTIONS' ? undefined : shed(request, reply)) as unknown as () => void,
    });
  }
  const logLine = (request: FastifyRequest, reply: FastifyReply) => {
    const audit = request.audit;
    if (audit === null) return;
    app.metrics.observe(audit.outcome, reply.elapsedTime / 1000);
    if (audit.outcome === 'spam' || audit.outcome === 'legitimate') app.metrics.verdicts.inc({ status: audit.outcome });
    // The app logger plus the reqId that request.log would bind (Fastify's default label): the same fields.
    // One fixed shape rather than a spread of the audit (pino leaves out the undefined ones): no copy of a
    // differently shaped object per outcome, and pino's loop over its keys sees one shape.
    app.log.info(
      {
        reqId: request.id,
        outcome: audit.outcome,
        submissionId: audit.submissionId,
        accountId: audit.accountId,
        formId: audit.formId,
        confidence: audit.confidence,
        modelVersion: audit.modelVersion,
        processingTime: audit.processingTime,
        clientIp: audit.clientIp,
        statusCode: reply.statusCode,
        // Every field of Audit, so one added there cannot be left out here.
      } satisfies Record<keyof Audit | 'reqId' | 'statusCode', unknown>,
      'verify',
    );
  };
  let workDone: ((request: FastifyRequest) => void) | undefined;
  if (opts.maxInFlight > 0) {
    const admission = new Admission({
      maxInFlight: opts.maxInFlight,
      maxWaitMs: opts.maxWaitMs,
      maxWaiting: MAX_WAITING,
      stallMs: opts.stallMs,
      turnBudgetMs: opts.turnBudgetMs,
      acceptFirstMs: opts.acceptFirstMs,
    });
    // The ticket rides on the request (a decorator, so every request has the slot from the start and one shape):
    // two WeakMaps keyed by request cost a hash lookup at every hook.
    app.decorateRequest('verifyTicket', null);
    const onConnection = () => admission.connectionAccepted();
    app.server.on('connection', onConnection);
    app.addHook('onClose', (_app, done) => {
      app.server.off('connection', onConnection);
      admission.close();
      done();
    });
    // One listener for every response, which finds its ticket on the response: a closure per request cost an
    // allocation and a context for each.
    function onResponseClose(this: TicketedResponse) {
      const ticket = this[TICKET];
      if (ticket !== undefined) admission.leave(ticket);
    }
    const admitted = (request: FastifyRequest, reply: FastifyReply, ticket: Ticket) => {
      request.verifyTicket = ticket;
      // A client that hangs up after its body was read gets neither onResponse nor onRequestAbort (Fastify fires
      // that only for an incomplete body): without this its slot stayed taken, and a few such hang-ups shed everything.
      // on, not once: a response closes once, and once wraps every listener in a closure of its own.
      (reply.raw as TicketedResponse)[TICKET] = ticket;
      reply.raw.on('close', onResponseClose);
    };
    app.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST') return done();
      // A free slot (the common case): in at once, without the two callbacks a wait needs.
      const now = admission.tryEnter();
      if (now !== undefined) {
        admitted(request, reply, now);
        return done();
      }
      admission.enter(
        (ticket) => {
          // Its client gave up while it waited: the slot goes to the next one.
          if (request.raw.destroyed) return admission.leave(ticket);
          admitted(request, reply, ticket);
          done();
        },
        () => void reply.send(shed(request, reply)),
      );
    });
    app.addHook('preValidation', (request, _reply, done) => {
      const ticket = request.verifyTicket;
      if (ticket !== null) {
        admission.bodyDone(ticket);
        ticket.workStart = performance.now();
      }
      done();
    });
    // One onResponse hook for the slot and the log line, and no onSend hook: the handler counts the work (from the
    // body parsed to the answer) as it returns; an answer that does not come from it (a 400 from the schema, an error)
    // has its work counted here. The slot frees as the answer is sent (the response's 'close', a tick later, covers
    // every other ending).
    workDone = (request) => {
      const ticket = request.verifyTicket;
      if (ticket !== null) admission.workDone(ticket);
    };
    app.addHook('onResponse', (request, reply, done) => {
      const ticket = request.verifyTicket;
      if (ticket !== null) {
        admission.workDone(ticket);
        admission.leave(ticket);
      }
      logLine(request, reply);
      done();
    });
  } else {
    // Callback style, not async: no promise and no extra microtask per answer.
    app.addHook('onResponse', (request, reply, done) => {
      logLine(request, reply);
      done();
    });
  }

  app.post<{ Body: VerifyRequest }>(VERIFY_PATH, { schema: verifyRouteSchema }, async (request, reply) => {
    const audit: Audit = (request.audit = { outcome: 'error' });
    let outcome: VerifyOutcome;
    try {
      outcome = await runChecks(opts.deps, request.body, request, audit);
    } finally {
      // formId only once the key is accepted (a caller may swap the fields, putting its key there), cut as the 404 cuts it.
      if (audit.accountId !== undefined) audit.formId = request.body.formId.slice(0, LOGGED_FORM_ID_CHARS);
    }
    const answered = answer(reply, outcome, audit, request.body.formId);
    workDone?.(request);
    return answered;
  });
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The verify route's admission ticket, once admitted (null otherwise). */
    verifyTicket: Ticket | null;
  }
}

export default verifyPlugin;
