import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Verdict } from '../../core/classifier/types.ts';
import { formatHostPort } from '../origin/host.ts';
import type { ReviewSink } from '../review/intake/job-schema.ts';
import type { TrafficRecorder } from '../review/dashboard/traffic.ts';
import { blockedReason, originHostOf, requestOrigin, type RequestOrigin } from '../origin/request-origin.ts';
import type { RateLimiter } from '../rate-limit/types.ts';
import { sha256Hex } from '../tenants/key.ts';
import type { TenantsSource } from '../tenants/store.ts';
import type { Audit } from './audit.ts';
import { fieldsOf } from './fields.ts';
import type { KeyGuard } from './key-guard.ts';
import type { ModelSlot } from './model-slot.ts';
import type { VerifyOutcome } from './outcome.ts';
import type { VerifyRequest } from './schema.ts';

export interface VerifyDeps {
  readonly tenants: TenantsSource;
  readonly limiter: RateLimiter;
  readonly keyGuard: KeyGuard;
  readonly model: ModelSlot;
  readonly reviewSink?: ReviewSink | undefined;
  /** The dashboard's per-form counts: a counter in memory, sent to Redis off the response path. */
  readonly traffic?: TrafficRecorder | undefined;
  readonly log?: { warn(obj: object, msg: string): void };
}

export interface VerifyContext {
  readonly ip: string;
  readonly headers: IncomingHttpHeaders;
}

/** The checks in the decided order: (body, done by the schema) → API key → form → origin → rate limit → classify. */
export async function runChecks(deps: VerifyDeps, body: VerifyRequest, ctx: VerifyContext, audit: Audit): Promise<VerifyOutcome> {
  const classifier = deps.model.classifier;
  if (classifier === undefined) return { kind: 'not-ready', submissionId: randomUUID() };

  const blockedFor = deps.keyGuard.blockedFor(ctx.ip);
  if (blockedFor > 0) {
    audit.clientIp = ctx.ip;
    return { kind: 'key-guessing', retryAfterSeconds: blockedFor };
  }
  const tenants = deps.tenants.current;
  const owner = tenants.keys.get(sha256Hex(body.apiKey));
  if (owner === undefined) {
    audit.clientIp = ctx.ip;
    const decision = await deps.keyGuard.recordFailure(ctx.ip);
    return decision.allowed ? { kind: 'invalid-key' } : { kind: 'key-guessing', retryAfterSeconds: decision.retryAfterSeconds };
  }
  audit.accountId = owner.accountId;

  const form = tenants.forms.get(body.formId);
  if (form === undefined || form.accountId !== owner.accountId) return { kind: 'form-not-found', formId: body.formId };

  const origin = requestOrigin(ctx.headers);
  if (!form.allowsOrigin(originHostOf(origin))) {
    deps.traffic?.record(owner.accountId, form.id, 'blocked');
    return { kind: 'blocked', reason: blockedReason(origin) };
  }

  const account = tenants.accounts.get(owner.accountId);
  if (account !== undefined) {
    const decision = await deps.limiter.hit(`acct:${account.id}`, account.rateLimit);
    if (!decision.allowed) {
      deps.traffic?.record(owner.accountId, form.id, 'rate-limited');
      return { kind: 'rate-limited', retryAfterSeconds: decision.retryAfterSeconds };
    }
  }

  const fields = fieldsOf(body);
  const verdict = classifier.classify(fields);
  const submissionId = randomUUID();
  deps.traffic?.record(owner.accountId, form.id, verdict.status);
  offerForReview(deps, { submissionId, accountId: owner.accountId, formId: form.id, origin, fields, verdict });
  return { kind: 'verdict', verdict, submissionId };
}

function offerForReview(
  deps: VerifyDeps,
  item: { submissionId: string; accountId: string; formId: string; origin: RequestOrigin; fields: Record<string, unknown>; verdict: Verdict },
): void {
  if (deps.reviewSink === undefined) return;
  const o = originHostOf(item.origin);
  try {
    deps.reviewSink.offer({
      submissionId: item.submissionId,
      accountId: item.accountId,
      formId: item.formId,
      receivedAt: new Date().toISOString(),
      origin: o === undefined ? null : formatHostPort(o),
      // The sink caps sizes for what it actually queues, so the common unqueued case costs nothing.
      fields: item.fields,
      truncated: false,
      verdict: { status: item.verdict.status, confidence: item.verdict.confidence, reasoning: item.verdict.reasoning, modelVersion: item.verdict.modelVersion },
    });
  } catch (err) {
    // The sink promises not to throw; if it does, the caller still gets its verdict.
    deps.log?.warn({ err }, 'review sink threw');
  }
}
