import type { Attempt } from './attempt.js';
import { retryAfterMs } from './backoff.js';
import type { BlockedResult, FailureReason, LegitimateResult, SpamResult, Verdict } from './result.js';

/** What one attempt means: a result to return, or a failure that may be retried (after `waitMs` if the service said). */
export type Step =
  | { readonly kind: 'result'; readonly result: SpamResult | LegitimateResult | BlockedResult }
  | {
      readonly kind: 'failure';
      readonly reason: FailureReason;
      readonly retry: boolean;
      readonly waitMs?: number;
      readonly status?: number;
      readonly body?: unknown;
      readonly submissionId?: string;
      readonly detail: string;
    };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isVerdict(v: unknown): v is Verdict {
  return (
    isRecord(v) &&
    (v.status === 'spam' || v.status === 'legitimate') &&
    typeof v.confidence === 'number' &&
    typeof v.reasoning === 'string' &&
    typeof v.submissionId === 'string' &&
    typeof v.processingTime === 'number'
  );
}

function isBlocked(v: unknown): v is BlockedResult {
  return isRecord(v) && v.success === false && v.classification === 'blocked' && typeof v.reason === 'string';
}

/** Reads one attempt the way the contract asks callers to. */
export function interpret(a: Attempt): Step {
  if (a.kind === 'timeout') return { kind: 'failure', reason: 'timeout', retry: true, detail: 'no answer in time' };
  if (a.kind === 'unreachable') {
    const cause = a.error instanceof Error ? (a.error.cause instanceof Error ? a.error.cause.message : a.error.message) : String(a.error);
    return { kind: 'failure', reason: 'unreachable', retry: true, detail: `no connection (${cause})` };
  }
  const parsed = parseJson(a.text);
  const body = parsed.ok ? parsed.value : a.text;
  const status = a.status;
  if (status === 200 && isVerdict(body)) {
    // The service's own fields first, so `outcome` and `allow` are always the client's.
    const result =
      body.status === 'spam'
        ? { ...body, status: 'spam' as const, outcome: 'spam' as const, allow: false as const }
        : { ...body, status: 'legitimate' as const, outcome: 'legitimate' as const, allow: true as const };
    return { kind: 'result', result };
  }
  if (status === 403 && isBlocked(body)) return { kind: 'result', result: { ...body, outcome: 'blocked', allow: false } };

  const submissionId = isRecord(body) && typeof body.submissionId === 'string' ? body.submissionId : undefined;
  const common = { status, body, ...(submissionId === undefined ? {} : { submissionId }) };
  const said = isRecord(body) && typeof body.error === 'string' ? `: ${body.error.slice(0, 200)}` : '';
  // A 200 (or 3xx) that is not JSON is no verdict: a captive portal or a proxy's page. A 4xx or 5xx page of a proxy
  // means what its status means, read below.
  if (!parsed.ok && status < 400)
    return { kind: 'failure', reason: 'bad-response', retry: false, ...common, detail: `HTTP ${status} with a body that is not JSON` };
  if (status === 429 || status === 503) {
    // The service sends Retry-After with both; the 429 body's retryAfter says the same in seconds.
    const header = retryAfterMs(a.retryAfter);
    const fromBody = status === 429 && isRecord(body) && typeof body.retryAfter === 'number' ? body.retryAfter * 1000 : undefined;
    const waitMs = header ?? fromBody;
    const reason = status === 429 ? 'rate-limited' : 'server-error';
    // A 429 that says nothing about when is a 4xx like another: not retried.
    return {
      kind: 'failure',
      reason,
      retry: status === 503 || waitMs !== undefined,
      ...(waitMs === undefined ? {} : { waitMs }),
      ...common,
      detail: `HTTP ${status}${said}`,
    };
  }
  if (status >= 500) return { kind: 'failure', reason: 'server-error', retry: true, ...common, detail: `HTTP ${status}${said}` };
  if (status >= 400) return { kind: 'failure', reason: 'rejected', retry: false, ...common, detail: `HTTP ${status}${said}` };
  return { kind: 'failure', reason: 'bad-response', retry: false, ...common, detail: `HTTP ${status} is not an answer of the contract` };
}
