import type { FastifyReply } from 'fastify';
import { blockedBody, formNotFoundBody, internalErrorBody, invalidKeyBody, ms, rateLimitedBody } from '../http/bodies.ts';
import type { Audit } from './audit.ts';
import type { VerifyOutcome } from './outcome.ts';

/** Turns an outcome into the spec's status code and body; notes the outcome for the log line and metrics. */
export function answer(reply: FastifyReply, outcome: VerifyOutcome, audit: Audit, formId: string): FastifyReply {
  const elapsed = reply.elapsedTime;
  audit.processingTime = ms(elapsed);
  switch (outcome.kind) {
    case 'verdict': {
      const v = outcome.verdict;
      audit.outcome = v.status;
      audit.submissionId = outcome.submissionId;
      audit.confidence = v.confidence;
      audit.modelVersion = v.modelVersion;
      return reply.send({
        status: v.status,
        confidence: v.confidence,
        reasoning: v.reasoning,
        submissionId: outcome.submissionId,
        processingTime: audit.processingTime,
        formId,
        modelVersion: v.modelVersion,
      });
    }
    case 'invalid-key':
      audit.outcome = 'invalid-key';
      return reply.code(401).send(invalidKeyBody());
    case 'key-guessing':
      audit.outcome = 'key-guessing';
      return reply
        .code(429)
        .header('retry-after', String(outcome.retryAfterSeconds))
        .send(rateLimitedBody(outcome.retryAfterSeconds, elapsed));
    case 'form-not-found':
      audit.outcome = 'form-not-found';
      return reply.code(404).send(formNotFoundBody(outcome.formId));
    case 'blocked':
      audit.outcome = 'blocked';
      return reply.code(403).send(blockedBody(outcome.reason, elapsed));
    case 'rate-limited':
      audit.outcome = 'rate-limited';
      return reply
        .code(429)
        .header('retry-after', String(outcome.retryAfterSeconds))
        .send(rateLimitedBody(outcome.retryAfterSeconds, elapsed));
    case 'not-ready':
      audit.outcome = 'not-ready';
      audit.submissionId = outcome.submissionId;
      return reply.code(503).header('retry-after', '5').send(internalErrorBody(outcome.submissionId, elapsed));
  }
}
