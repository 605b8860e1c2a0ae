import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ORIGIN, UUID_V4, captureLogger, stubClassifier, tenants, testApp, verifyBody } from '../helpers.ts';
import { OTHER_KEY, tenantsFile } from '../../support/tenants.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function post(body: unknown, headers: Record<string, string> = ORIGIN, raw = false) {
  app ??= await testApp();
  return app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { 'content-type': 'application/json', ...headers },
    payload: raw ? (body as string) : JSON.stringify(body),
  });
}

describe('spec error table, row 1: missing or invalid parameters → 400 {error}', () => {
  const cases: Array<[string, unknown]> = [
    ['apiKey missing', { formId: 'contact', payload: { a: 1 } }],
    ['apiKey empty', { apiKey: '', formId: 'contact', payload: { a: 1 } }],
    ['apiKey not a string', { apiKey: 12345, formId: 'contact', payload: { a: 1 } }],
    ['formId missing', { apiKey: 'x', payload: { a: 1 } }],
    ['payload and fieldData both absent', { apiKey: 'x', formId: 'contact' }],
    ['payload an array', { apiKey: 'x', formId: 'contact', payload: ['a'] }],
    ['payload a string', { apiKey: 'x', formId: 'contact', payload: 'hello' }],
    ['payload null', { apiKey: 'x', formId: 'contact', payload: null }],
    ['fieldData not an object, payload fine', { apiKey: 'x', formId: 'contact', payload: { a: 1 }, fieldData: 3 }],
    ['body an array', [{ apiKey: 'x' }]],
    ['body a number', 42],
  ];
  it.each(cases)('%s', async (_name, body) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    const json = res.json();
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error).toContain('apiKey');
    expect(json.error).toContain('either payload or fieldData');
  });

  it('malformed JSON is a 400 with the same message, not echoing the body', async () => {
    const res = await post('{"apiKey": "secret-in-broken-json', ORIGIN, true);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('either payload or fieldData');
    expect(res.body).not.toContain('secret-in-broken-json');
  });

  it('an empty JSON body is a 400', async () => {
    const res = await post('', ORIGIN, true);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('apiKey');
  });

  it('says which part is wrong', async () => {
    expect((await post({ apiKey: 'x', formId: 'contact', payload: [] })).json().error).toContain('payload is not a JSON object');
  });
});

describe('spec error table, row 2: invalid API key → 401', () => {
  it('answers exactly {"error":"Invalid API key"}', async () => {
    const res = await post(verifyBody({ apiKey: 'wrong' }));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid API key' });
  });
});

describe('spec error table, row 3: origin not allowed → 403 blocked body', () => {
  it('has exactly the blocked fields, and the reason names the host', async () => {
    const res = await post(verifyBody(), { origin: 'https://evil.example.net' });
    expect(res.statusCode).toBe(403);
    const json = res.json();
    expect(Object.keys(json).sort()).toEqual(['classification', 'confidence', 'processingTime', 'reason', 'success']);
    expect(json).toMatchObject({ success: false, classification: 'blocked', confidence: 1 });
    expect(json.reason).toMatch(/referrer domain "evil\.example\.net" is not allowed/i);
    expect(typeof json.processingTime).toBe('number');
    expect(json.processingTime).toBeGreaterThanOrEqual(0);
    expect(json).not.toHaveProperty('status');
  });

  it('blocks a request with neither Origin nor Referer', async () => {
    const res = await post(verifyBody(), {});
    expect(res.statusCode).toBe(403);
    expect(res.json().reason).toMatch(/no Origin or Referer/);
  });

  it('lets a "*" form through without any origin', async () => {
    const res = await post(verifyBody({ formId: 'open' }), {});
    expect(res.statusCode).toBe(200);
  });
});

describe("spec error table, row 4: form not found or not the account's → 404", () => {
  it('names the form id for an unknown form', async () => {
    const res = await post(verifyBody({ formId: 'no-such-form' }));
    expect(res.statusCode).toBe(404);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toMatch(/"no-such-form" not found or does not belong to this account/);
  });

  it("treats another account's form like an unknown one", async () => {
    const res = await post(verifyBody({ apiKey: OTHER_KEY, formId: 'contact' }));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toContain('"contact"');
  });
});

describe('spec error table, row 5: rate limit exceeded → 429', () => {
  it('answers the spec body with an integer retryAfter ≥ 1 and a matching Retry-After header', async () => {
    app = await testApp({ tenants: tenants(tenantsFile({ rateLimit: { max: 2, windowSeconds: 60, algorithm: 'fixed' } })) });
    expect((await post(verifyBody())).statusCode).toBe(200);
    expect((await post(verifyBody())).statusCode).toBe(200);
    const res = await post(verifyBody());
    expect(res.statusCode).toBe(429);
    const json = res.json();
    expect(Object.keys(json).sort()).toEqual(['error', 'message', 'processingTime', 'retryAfter']);
    expect(json.error).toBe('Rate limit exceeded');
    expect(Number.isInteger(json.retryAfter)).toBe(true);
    expect(json.retryAfter).toBeGreaterThanOrEqual(1);
    expect(json.retryAfter).toBeLessThanOrEqual(60);
    expect(json.message).toMatch(/wait/);
    expect(res.headers['retry-after']).toBe(String(json.retryAfter));
  });
});

describe('spec error table, row 6: internal error → 500', () => {
  it('answers the spec body with a fresh UUID v4, logs that id with the error, and leaks no stack', async () => {
    const capture = captureLogger();
    app = await testApp({ classifier: stubClassifier('throw'), logger: capture.logger });
    const first = await post(verifyBody());
    const second = await post(verifyBody());
    expect(first.statusCode).toBe(500);
    const json = first.json();
    expect(Object.keys(json).sort()).toEqual(['confidence', 'error', 'processingTime', 'status', 'submissionId']);
    expect(json).toMatchObject({ error: 'Internal server error', status: 'error', confidence: 0 });
    expect(json.submissionId).toMatch(UUID_V4);
    expect(second.json().submissionId).not.toBe(json.submissionId);
    expect(first.body).not.toMatch(/exploded|at .*\.ts/);
    const logged = capture.lines.find((l) => l.submissionId === json.submissionId && l.level === 50);
    expect(logged?.err).toBeDefined();
  });
});

describe('more answers, all JSON', () => {
  it('413 when the body is over BODY_LIMIT', async () => {
    app = await testApp({ bodyLimit: 2048 });
    const res = await post(verifyBody({ payload: { message: 'x'.repeat(4096) } }));
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatch(/larger than the limit of 2048 bytes/);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
    '415 for %s',
    async (type) => {
      const res = await post('apiKey=x', { ...ORIGIN, 'content-type': type }, true);
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.json().error).toMatch(/application\/json/);
    },
  );

  it('415 when a body comes without a content type', async () => {
    app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: Buffer.from('{}') });
    expect(res.statusCode).toBe(415);
  });

  it('accepts application/json with a charset', async () => {
    const res = await post(verifyBody(), { ...ORIGIN, 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(200);
  });

  it('404 JSON for an unknown route, and for GET /v1/verify', async () => {
    app = await testApp();
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/v1/verify'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatch(/not found/);
    }
  });

  it('503 with the error body while the model is still loading, then 200', async () => {
    let resolve!: (c: ReturnType<typeof stubClassifier>) => void;
    app = await testApp({ classifier: new Promise((r) => (resolve = r)) });
    const res = await post(verifyBody());
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'Internal server error', status: 'error', confidence: 0 });
    expect(res.json().submissionId).toMatch(UUID_V4);
    expect(res.headers['retry-after']).toBeDefined();
    resolve(stubClassifier());
    await new Promise((r) => setImmediate(r));
    expect((await post(verifyBody())).statusCode).toBe(200);
  });
});
