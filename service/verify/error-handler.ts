import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_HEADERS, isConsolePath } from '../review/console/headers.ts';
import { addCorsHeaders } from '../http/cors.ts';
import type { OutcomeLabel } from './outcome.ts';
import { internalErrorBody, invalidParamsBody, ms, plainErrorBody } from '../http/bodies.ts';
import { describeInvalid } from '../http/describe-invalid.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../http/json-depth.ts';

// Fastify's own messages for these are fixed texts (no request data), so they may reach the caller.
const PASS_THROUGH_4XX = new Set(['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'FST_ERR_CTP_INVALID_TYPE', 'FST_ERR_ASYNC_CONSTRAINT']);

const UNSUPPORTED_MEDIA_TYPE = 'Unsupported content type: send the body as application/json in UTF-8';
const BAD_URL = 'the URL is not valid (bad percent-encoding in the path)';
const TOO_DEEP = `the body is nested more than ${MAX_JSON_DEPTH} levels deep (the body object is level 1, payload and fieldData level 2)`;
const TOO_WIDE =
  `the body holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values ` +
  '(each string, number, boolean, null, array and object in payload and fieldData counts as one, at any depth)';

/** Notes the outcome for the log line and returns the processing time it logs, for a body that reports it too. */
function note(request: FastifyRequest, reply: FastifyReply, outcome: OutcomeLabel, submissionId?: string): number {
  // ??=: a frameworkErrors request is built without the app's decorators, so its audit is undefined, not null.
  request.audit ??= { outcome };
  request.audit.outcome = outcome;
  const processingTime = ms(reply.elapsedTime);
  request.audit.processingTime = processingTime;
  if (submissionId !== undefined) request.audit.submissionId = submissionId;
  return processingTime;
}

/**
 * The one error handler: every thrown or framework error becomes a spec body. Messages that could carry request
 * data (the JSON parser quotes the body) are neither sent nor logged.
 */
export function createErrorHandler(bodyLimit: number) {
  return function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const status = error.statusCode ?? 500;
    if (error.validation !== undefined) {
      note(request, reply, 'invalid-params');
      return reply.code(400).send(invalidParamsBody(describeInvalid(request.body)));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody('the body is not valid JSON'));
      case 'FG_ERR_FORBIDDEN_JSON_KEY':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody('the body has a forbidden key: "__proto__", or "constructor" holding "prototype"'));
      case 'FG_ERR_JSON_TOO_DEEP':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody(TOO_DEEP));
      case 'FG_ERR_JSON_TOO_WIDE':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody(TOO_WIDE));
      case 'FST_ERR_BAD_URL':
        // Fastify's message quotes the raw path; the caller gets the spec's 400 without it.
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody(BAD_URL));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody('the body is empty'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        note(request, reply, 'too-large');
        return reply.code(413).send(plainErrorBody(`Request body is larger than the limit of ${bodyLimit} bytes`));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        note(request, reply, 'unsupported-media-type');
        return reply.code(415).send(plainErrorBody(UNSUPPORTED_MEDIA_TYPE));
    }
    if (status >= 400 && status < 500) {
      note(request, reply, 'invalid-params');
      // A body cut off by a closed connection (the client left, or REQUEST_TIMEOUT_MS answered 408 and closed it) has no one to answer.
      if (request.raw.socket?.destroyed === true)
        request.log.debug({ code: error.code }, 'connection closed before the request arrived in full');
      else request.log.info({ code: error.code, statusCode: status }, 'client error');
      return reply.code(status).send(plainErrorBody(PASS_THROUGH_4XX.has(error.code) ? error.message : 'Bad request'));
    }
    const submissionId = randomUUID();
    const processingTime = note(request, reply, 'error', submissionId);
    request.log.error({ err: error, submissionId }, 'request failed; the submission was not processed');
    return reply.code(500).send(internalErrorBody(submissionId, processingTime));
  };
}

type ErrorHandler = ReturnType<typeof createErrorHandler>;

/**
 * Fastify's frameworkErrors (a URL the router cannot decode): the same error handler, with the verify route's CORS
 * headers, since such a request never reaches a route's hooks and a browser page must still read the answer.
 */
export function createFrameworkErrorHandler(errorHandler: ErrorHandler) {
  return function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    request.log.info({ code: error.code, statusCode: 400 }, 'URL not decodable');
    if (isConsolePath(request.raw.url ?? '')) {
      // The console's own headers and no CORS, as for every other answer under /review.
      void reply
        .code(400)
        .headers(CONSOLE_HEADERS)
        .send(plainErrorBody(`Bad request: ${BAD_URL}`));
      return;
    }
    addCorsHeaders(request, reply);
    errorHandler(error, request, reply);
  };
}

/**
 * Fastify's clientErrorHandler: requests Node's parser refuses (duplicate Content-Length, Content-Length with
 * chunked, ...) or that time out (REQUEST_TIMEOUT_MS) never become requests, so they are answered on the socket,
 * in the spec's shapes instead of Fastify's {"error","message":"Client Error"}.
 */
export function createClientErrorHandler() {
  return function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    // A reset connection is gone: nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, body] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, plainErrorBody('Request timeout: the request did not arrive in full in time')]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, plainErrorBody('Request header fields too large')]
          : [400, invalidParamsBody('the request is not valid HTTP/1.1')];
    // A timeout is the operator's setting at work: said at info, with the status the client got.
    if (status === 408) this.log.info({ code: error.code, statusCode: status }, 'request timed out before it arrived in full');
    else this.log.debug({ code: error.code, statusCode: status }, 'client error on the connection');
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight != null && inFlight.req.complete && !inFlight.writableFinished) {
      // The bad bytes came after a whole request (pipelined) that is still being answered: it was classified and
      // maybe queued, so it gets its own answer, and the connection closes after it instead of a 400 in its place.
      if (!inFlight.headersSent) inFlight.setHeader('connection', 'close');
      inFlight.once('close', () => socket.destroy());
      return;
    }
    // As Node does without a handler: never write into a response that has already started.
    if (socket.writable && inFlight?.headersSent !== true) {
      const json = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
      );
    }
    socket.destroy(error);
  };
}
