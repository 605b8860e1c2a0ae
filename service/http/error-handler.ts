import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { OutcomeLabel } from '../verify/outcome.ts';
import { internalErrorBody, invalidParamsBody, ms, plainErrorBody } from './bodies.ts';
import { describeInvalid } from './describe-invalid.ts';

// Fastify's own messages for these are fixed texts (no request data), so they may reach the caller.
const PASS_THROUGH_4XX = new Set(['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'FST_ERR_CTP_INVALID_TYPE', 'FST_ERR_BAD_URL', 'FST_ERR_ASYNC_CONSTRAINT']);

/** Notes the outcome for the log line and returns the processing time it logs, for a body that reports it too. */
function note(request: FastifyRequest, reply: FastifyReply, outcome: OutcomeLabel, submissionId?: string): number {
  if (request.audit === null) request.audit = { outcome };
  else request.audit.outcome = outcome;
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
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        note(request, reply, 'invalid-params');
        return reply.code(400).send(invalidParamsBody('the body is empty'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        note(request, reply, 'too-large');
        return reply.code(413).send(plainErrorBody(`Request body is larger than the limit of ${bodyLimit} bytes`));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        note(request, reply, 'unsupported-media-type');
        return reply.code(415).send(plainErrorBody('Unsupported content type: send the body as application/json'));
    }
    if (status >= 400 && status < 500) {
      note(request, reply, 'invalid-params');
      request.log.info({ code: error.code, statusCode: status }, 'client error');
      return reply.code(status).send(plainErrorBody(PASS_THROUGH_4XX.has(error.code) ? error.message : 'Bad request'));
    }
    const submissionId = randomUUID();
    const processingTime = note(request, reply, 'error', submissionId);
    request.log.error({ err: error, submissionId }, 'request failed; the submission was not processed');
    return reply.code(500).send(internalErrorBody(submissionId, processingTime));
  };
}
