import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from '../../../service/tenants/key.ts';
import { KEY, tenantsFile } from '../../support/tenants.ts';
import { ORIGIN, VERDICT_BODY_KEYS, stubClassifier, tenants, testApp, verifyBody } from '../helpers.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function post(a: FastifyInstance, body: unknown, headers: Record<string, string> = ORIGIN, remoteAddress = '10.0.0.1') {
  return a.inject({ method: 'POST', url: '/v1/verify', headers, payload: body as object, remoteAddress });
}

describe('check order: body → API key → form → origin → rate limit → classify', () => {
  it('a bad body wins over a bad key', async () => {
    app = await testApp();
    expect((await post(app, { apiKey: 'wrong', formId: 'nope' })).statusCode).toBe(400);
  });

  it('a bad key wins over an unknown form and a bad origin', async () => {
    app = await testApp();
    expect((await post(app, verifyBody({ apiKey: 'wrong', formId: 'nope' }), { origin: 'https://evil.net' })).statusCode).toBe(401);
  });

  it('an unknown form wins over a bad origin', async () => {
    app = await testApp();
    expect((await post(app, verifyBody({ formId: 'nope' }), { origin: 'https://evil.net' })).statusCode).toBe(404);
  });

  it('a blocked origin wins over the rate limit and does not use it up', async () => {
    const classifier = stubClassifier();
    app = await testApp({ classifier, tenants: tenants(tenantsFile({ rateLimit: { max: 1, windowSeconds: 60, algorithm: 'fixed' } })) });
    for (let i = 0; i < 3; i++) expect((await post(app, verifyBody(), { origin: 'https://evil.net' })).statusCode).toBe(403);
    expect((await post(app, verifyBody())).statusCode).toBe(200);
    expect((await post(app, verifyBody(), { origin: 'https://evil.net' })).statusCode).toBe(403);
    expect((await post(app, verifyBody())).statusCode).toBe(429);
    expect(classifier.calls).toHaveLength(1);
  });
});

describe('rate limit scope', () => {
  it('is per account: all its keys share one limit; other accounts are not affected', async () => {
    const file = tenantsFile({ rateLimit: { max: 3, windowSeconds: 60, algorithm: 'sliding' } });
    file.accounts[0]?.apiKeys.push({ id: 'second', sha256: sha256Hex('second-key-of-acme') });
    app = await testApp({ tenants: tenants(file) });
    const codes = [];
    for (const apiKey of [KEY, 'second-key-of-acme', KEY, 'second-key-of-acme'])
      codes.push((await post(app, verifyBody({ apiKey }))).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const globex = await post(
      app,
      { apiKey: 'test-key-globex-0123456789', formId: 'globex-form', payload: { a: 'b' } },
      { origin: 'https://globex.test' },
    );
    expect(globex.statusCode).toBe(200);
  });

  it('applies the documented default (600 per 60 s) when the account sets none', async () => {
    app = await testApp();
    const codes: number[] = [];
    for (let i = 0; i < 601; i++) codes.push((await post(app, verifyBody())).statusCode);
    expect(codes.slice(0, 600).every((c) => c === 200)).toBe(true);
    expect(codes[600]).toBe(429);
  });
});

describe('failed key checks are limited per client IP', () => {
  const rule = { max: 3, windowMs: 60_000, algorithm: 'fixed' as const };

  it('answers 429 after too many wrong keys from one IP, then also for a right key from that IP', async () => {
    app = await testApp({ keyFailureRule: rule });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await post(app, verifyBody({ apiKey: `guess-${i}` }))).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);
    const right = await post(app, verifyBody());
    expect(right.statusCode).toBe(429);
    expect(right.json().error).toBe('Rate limit exceeded');
    expect(Number(right.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('does not hold other IPs back', async () => {
    app = await testApp({ keyFailureRule: rule });
    for (let i = 0; i < 5; i++) await post(app, verifyBody({ apiKey: `guess-${i}` }), ORIGIN, '10.0.0.66');
    expect((await post(app, verifyBody(), ORIGIN, '10.0.0.77')).statusCode).toBe(200);
    expect((await post(app, verifyBody({ apiKey: 'wrong' }), ORIGIN, '10.0.0.77')).statusCode).toBe(401);
  });
});

describe('what the classifier is given', () => {
  it('classifies payload and fieldData together when both come, keeping colliding keys', async () => {
    const classifier = stubClassifier();
    app = await testApp({ classifier });
    const res = await post(app, {
      apiKey: KEY,
      formId: 'contact',
      payload: { message: 'from payload' },
      fieldData: { message: 'from fieldData', extra: [1, { deep: 'x' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(classifier.calls[0]).toEqual({
      payload: { message: 'from payload' },
      fieldData: { message: 'from fieldData', extra: [1, { deep: 'x' }] },
    });
  });

  it('classifies fieldData alone, and ignores unknown top-level fields', async () => {
    const classifier = stubClassifier();
    app = await testApp({ classifier });
    const res = await post(app, { apiKey: KEY, formId: 'contact', fieldData: { q1: { answer: 'yes' } }, honeypot: 'x', version: 2 });
    expect(res.statusCode).toBe(200);
    expect(classifier.calls[0]).toEqual({ q1: { answer: 'yes' } });
  });
});

describe('success body', () => {
  it("has exactly the spec fields plus formId and modelVersion; confidence is the verdict's", async () => {
    app = await testApp();
    const res = await post(app, verifyBody());
    expect(res.statusCode).toBe(200);
    const json = res.json();
    expect(Object.keys(json).sort()).toEqual(VERDICT_BODY_KEYS);
    expect(json.formId).toBe('contact');
    expect(json.confidence).toBe(0.9);
  });

  it('gives each submission its own id', async () => {
    app = await testApp();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await post(app, verifyBody())).json().submissionId);
    expect(ids.size).toBe(20);
  });
});

describe('review sink', () => {
  it('is offered each verdict with the submission id, account and fields, and nothing else', async () => {
    const offered: unknown[] = [];
    app = await testApp({ reviewSink: { offer: (job) => (offered.push(job), { reason: 'spam', probability: 1 }), close: async () => {} } });
    const ok = await post(app, verifyBody());
    await post(app, verifyBody({ apiKey: 'wrong' }));
    await post(app, verifyBody(), { origin: 'https://evil.net' });
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({
      submissionId: ok.json().submissionId,
      accountId: 'acme',
      formId: 'contact',
      origin: 'example.com',
      fields: verifyBody().payload,
      verdict: { status: 'legitimate', confidence: 0.9, modelVersion: 'stub-1' },
    });
  });

  it('cannot break a verdict by throwing', async () => {
    app = await testApp({
      reviewSink: {
        offer: () => {
          throw new Error('queue down');
        },
        close: async () => {},
      },
    });
    expect((await post(app, verifyBody())).statusCode).toBe(200);
  });

  it('mounts the review routes under /review when given', async () => {
    app = await testApp({
      reviewRoutes: async (r) => {
        r.get('/ping', async () => ({ ok: true }));
      },
    });
    expect((await app.inject({ method: 'GET', url: '/review/ping' })).json()).toEqual({ ok: true });
  });
});
