import { interpret, type Step } from './answer.js';
import { attempt, type FetchLike } from './attempt.js';
import { backoffMs } from './backoff.js';
import { FormguardUnavailableError } from './errors.js';
import type { Failure, FailedOpenResult, VerifyResult } from './result.js';

export interface FormguardClientOptions {
  /** Where the service is, e.g. `https://formguard.example.com` (a path prefix is kept). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Time allowed to one request, answer included. Default 5000, as the contract recommends. */
  readonly timeoutMs?: number;
  /** Retries after a network error, a timeout or a 5xx (and a 429 with Retry-After). Default 2. */
  readonly retries?: number;
  /** Time allowed to the whole call, retries and waits included. Default `timeoutMs + 1000`. */
  readonly deadlineMs?: number;
  /** Default true: no verdict gives a `failed-open` result. False: it throws a FormguardUnavailableError. */
  readonly failOpen?: boolean;
  /** Called once per call that got no verdict, e.g. to log it. What it throws is ignored. */
  readonly onFailure?: (failure: Failure) => void;
  /** Default: the global fetch. */
  readonly fetch?: FetchLike;
}

interface VerifyFields {
  readonly formId: string;
  /**
   * Server-side callers only: the page the visitor filled in, e.g. `https://shop.example/contact`. Sent as the
   * `Origin` and `Referer` headers the service checks against the form's allowed list. Browsers set those headers
   * themselves and ignore this.
   */
  readonly origin?: string;
  /** Aborting it ends the call at once with its reason (thrown): the caller no longer wants an answer. */
  readonly signal?: AbortSignal;
}

/** The submission: `payload`, `fieldData` or both, as the contract allows. */
export type VerifyRequest = VerifyFields &
  (
    | { readonly payload: Record<string, unknown>; readonly fieldData?: Record<string, unknown> }
    | { readonly payload?: Record<string, unknown>; readonly fieldData: Record<string, unknown> }
  );

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_RETRIES = 2;
/** The deadline's default margin over one timeout: room for a quick retry, so a page never waits much past 5 s. */
const DEADLINE_MARGIN_MS = 1000;
/** A retry is not worth sending with less time than this left. */
const MIN_ATTEMPT_MS = 50;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `localhost:3000` parses as a URL of scheme "localhost:": only http and https are addresses here. */
function httpUrl(text: unknown): URL | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new TypeError(`FormguardClient: ${name} must be a finite number ≥ 0, got ${String(value)}`);
  return value;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Calls `POST /v1/verify` the way the contract asks callers to: time-boxed, retried with backoff, failing open. */
export class FormguardClient {
  readonly #url: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #deadlineMs: number;
  readonly #failOpen: boolean;
  readonly #onFailure: ((failure: Failure) => void) | undefined;
  readonly #fetch: FetchLike;

  constructor(options: FormguardClientOptions) {
    const base = httpUrl(options.baseUrl);
    if (base === undefined)
      throw new TypeError(`FormguardClient: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('FormguardClient: apiKey is required');
    this.#url = `${base.origin}${base.pathname.replace(/\/+$/, '')}/v1/verify`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = nonNegative('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#retries = Math.floor(nonNegative('retries', options.retries ?? DEFAULT_RETRIES));
    this.#deadlineMs = nonNegative('deadlineMs', options.deadlineMs ?? this.#timeoutMs + DEADLINE_MARGIN_MS);
    this.#failOpen = options.failOpen ?? true;
    this.#onFailure = options.onFailure;
    // Called through a wrapper: a browser's fetch called as a method of another object throws "Illegal invocation".
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Verifies one submission. Resolves within `deadlineMs`; rejects only on bad arguments, an abort, or with failOpen false. */
  async verify(request: VerifyRequest): Promise<VerifyResult> {
    const init = this.#request(request);
    const started = performance.now();
    const deadline = started + this.#deadlineMs;
    let attempts = 0;
    let last: Extract<Step, { kind: 'failure' }>;
    for (;;) {
      attempts++;
      const step = interpret(
        await attempt(this.#fetch, this.#url, init, Math.min(this.#timeoutMs, deadline - performance.now()), request.signal),
      );
      if (step.kind === 'result') return step.result;
      last = step;
      if (!step.retry || attempts > this.#retries) break;
      const wait = step.waitMs ?? backoffMs(attempts);
      // Retry only if the wait and a useful attempt still fit the deadline; Retry-After is never cut short.
      if (performance.now() + wait + Math.min(MIN_ATTEMPT_MS, this.#timeoutMs) > deadline) break;
      await sleep(wait, request.signal);
    }
    return this.#fail(last, attempts, performance.now() - started);
  }

  #request(request: VerifyRequest): RequestInit {
    if (typeof request.formId !== 'string' || request.formId === '') throw new TypeError('FormguardClient.verify: formId is required');
    const { payload, fieldData } = request;
    if (payload !== undefined && !isObject(payload)) throw new TypeError('FormguardClient.verify: payload must be an object');
    if (fieldData !== undefined && !isObject(fieldData)) throw new TypeError('FormguardClient.verify: fieldData must be an object');
    if (payload === undefined && fieldData === undefined) throw new TypeError('FormguardClient.verify: payload or fieldData is required');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (request.origin !== undefined) {
      const page = httpUrl(request.origin);
      if (page === undefined)
        throw new TypeError(
          `FormguardClient.verify: origin must be an absolute URL such as https://shop.example/contact, got ${JSON.stringify(request.origin)}`,
        );
      headers.origin = page.origin;
      headers.referer = page.href;
    }
    const body = JSON.stringify({
      apiKey: this.#apiKey,
      formId: request.formId,
      ...(payload === undefined ? {} : { payload }),
      ...(fieldData === undefined ? {} : { fieldData }),
    });
    return { method: 'POST', headers, body };
  }

  #fail(step: Extract<Step, { kind: 'failure' }>, attempts: number, elapsedMs: number): FailedOpenResult {
    const { kind: _kind, retry: _retry, waitMs: _waitMs, detail, ...rest } = step;
    const failure: Failure = {
      ...rest,
      attempts,
      elapsedMs,
      message: `formguard: no verdict from ${this.#url} (${step.reason}): ${detail}, after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${Math.round(elapsedMs)} ms`,
    };
    try {
      this.#onFailure?.(failure);
    } catch {
      // A logging hook that throws must not turn a fail-open into an outage.
    }
    if (!this.#failOpen) throw new FormguardUnavailableError(failure);
    return { ...failure, outcome: 'failed-open', allow: true };
  }
}
