import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Classifier, Score, Verdict } from '../../core/classifier/types.ts';
import type { Queued } from '../../core/classifier/shadow-store.ts';
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
import { checkLists, type ListLookup } from './lists.ts';
import type { ModelSlot } from './model-slot.ts';
import type { ShadowMetrics, ShadowSink } from '../models/shadow.ts';
import type { VerifyOutcome } from './outcome.ts';
import type { VerifyRequest } from './schema.ts';

export interface VerifyDeps {
  readonly tenants: TenantsSource;
  readonly limiter: RateLimiter;
  readonly keyGuard: KeyGuard;
  readonly model: ModelSlot;
  readonly reviewSink?: ReviewSink | undefined;
  readonly shadow?: ShadowScoring | undefined;
  /** The dashboard's per-form counts: a counter in memory, sent to Redis off the response path. */
  readonly traffic?: TrafficRecorder | undefined;
  /** The accounts' allow and block lists (review mode); without them the model alone decides. */
  readonly lists?: ListLookup | undefined;
  readonly log?: { warn(obj: object, msg: string): void };
}

/** Scoring a sample of verified submissions with the shadow model too, after the answer is sent. */
export interface ShadowScoring {
  /** SHADOW_SAMPLE_RATE: the share of verified submissions the shadow scores. */
  readonly sampleRate: number;
  readonly metrics: ShadowMetrics;
  readonly sink?: ShadowSink | undefined;
  readonly random?: () => number;
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
  // The account's own correction applies to its own submissions only: the key decided the account.
  const modelVerdict = classifier.classify(fields, owner.accountId);
  const submissionId = randomUUID();
  // The account's allow and block lists (lists.ts): a hit decides, is counted, and goes neither to review nor to the shadow.
  const listed = checkLists(deps.lists, owner.accountId, modelVerdict);
  const verdict = listed?.verdict ?? modelVerdict;
  deps.traffic?.record(owner.accountId, form.id, verdict.status);
  if (listed !== undefined) {
    deps.traffic?.record(owner.accountId, form.id, listed.hit.list === 'block' ? 'block-list' : 'allow-list');
    return { kind: 'verdict', verdict, submissionId };
  }
  const shadow = deps.model.shadow;
  const sampling = deps.shadow;
  const shadowing =
    shadow !== undefined && sampling !== undefined && sampling.sampleRate > 0 && (sampling.random ?? Math.random)() < sampling.sampleRate
      ? { shadow, sampling }
      : undefined;
  // Nothing to hand on (no review queue, not sampled for the shadow): no item, no timestamp, on the hot path.
  if (shadowing === undefined && deps.reviewSink === undefined) return { kind: 'verdict', verdict, submissionId };
  const item: ReviewItem = {
    submissionId,
    accountId: owner.accountId,
    formId: form.id,
    origin,
    fields,
    verdict,
    receivedAt: new Date().toISOString(),
  };
  if (shadowing !== undefined) {
    // setImmediate runs after this turn's I/O, the answer's write included: the shadow never delays an answer.
    setImmediate(() => scoreInShadow(deps, shadowing.sampling, shadowing.shadow, item));
  } else {
    offerForReview(deps, item);
  }
  return { kind: 'verdict', verdict, submissionId };
}

interface ReviewItem {
  readonly submissionId: string;
  readonly accountId: string;
  readonly formId: string;
  readonly origin: RequestOrigin;
  readonly fields: Record<string, unknown>;
  readonly verdict: Verdict;
  readonly receivedAt: string;
}

/** Scores with the shadow, counts the pair, then offers the submission for review with both verdicts. */
function scoreInShadow(deps: VerifyDeps, sampling: ShadowScoring, shadow: Classifier, item: ReviewItem): void {
  let other: Score;
  try {
    // The account's own correction applies as it does for the active model; no reasoning, nobody reads it.
    other = shadow.score(item.fields, item.accountId);
  } catch (err) {
    deps.log?.warn({ err, shadowVersion: shadow.modelVersion }, 'shadow model failed to score');
    offerForReview(deps, item);
    return;
  }
  const version = shadow.modelVersion;
  sampling.metrics.scored.inc({ version });
  if (other.status === item.verdict.status) sampling.metrics.agreed.inc({ version });
  else sampling.metrics.disagreed.inc({ version, active: item.verdict.status, shadow: other.status });
  // Queued first: only a submission in review can be labelled, so only its pair is kept for shadow-report.
  const queued = offerForReview(deps, item, other);
  const pairOf = (v: Score) => ({ version: v.modelVersion, status: v.status, spamProbability: v.spamProbability });
  void sampling.sink
    ?.record(
      {
        submissionId: item.submissionId,
        accountId: item.accountId,
        formId: item.formId,
        receivedAt: item.receivedAt,
        active: pairOf(item.verdict),
        shadow: pairOf(other),
        // Why it went to review: shadow-report weights its label by 1 / the chance of being queued.
        ...(queued === undefined ? {} : { queued }),
      },
      queued !== undefined,
    )
    .catch((err: unknown) => deps.log?.warn({ err }, 'shadow sink threw'));
}

/** Offers the verdict to the review queue; why it goes to review, or undefined when it does not. */
function offerForReview(deps: VerifyDeps, item: ReviewItem, shadow?: Score): Queued | undefined {
  if (deps.reviewSink === undefined) return undefined;
  const o = originHostOf(item.origin);
  try {
    return deps.reviewSink.offer({
      submissionId: item.submissionId,
      accountId: item.accountId,
      formId: item.formId,
      receivedAt: item.receivedAt,
      origin: o === undefined ? null : formatHostPort(o),
      // The sink caps sizes for what it actually queues, so the common unqueued case costs nothing.
      fields: item.fields,
      truncated: false,
      verdict: {
        status: item.verdict.status,
        confidence: item.verdict.confidence,
        reasoning: item.verdict.reasoning,
        modelVersion: item.verdict.modelVersion,
      },
      ...(shadow === undefined
        ? {}
        : { shadow: { status: shadow.status, confidence: shadow.confidence, modelVersion: shadow.modelVersion } }),
    });
  } catch (err) {
    // The sink promises not to throw; if it does, the caller still gets its verdict.
    deps.log?.warn({ err }, 'review sink threw');
    return undefined;
  }
}
