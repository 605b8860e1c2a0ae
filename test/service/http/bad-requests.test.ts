import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { captureLogger, ORIGIN, stubClassifier, tenants, testApp, UUID_V4, verifyBody } from '../helpers.ts';
import { KEY, tenantsFile } from '../../support/tenants.ts';
import { rawRequest } from './raw-http.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../../service/http/json-depth.ts';
import type { ReviewJob } from '../../../service/review/intake/job-schema.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const SPEC_400 = /^Missing or invalid parameters: apiKey, formId and either payload or fieldData/;

function post(payload: string, headers: Record<string, string> = {}) {
  return app!.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { ...ORIGIN, 'content-type': 'application/json', ...headers },
    payload,
  });
}

describe('a JSON body with a forbidden key', () => {
  it.each([
    ['__proto__', `{"apiKey":"${KEY}","formId":"contact","payload":{"__proto__":{"admin":true}}}`],
    ['constructor.prototype', `{"apiKey":"${KEY}","formId":"contact","payload":{"constructor":{"prototype":{"admin":true}}}}`],
  ])('%s: 400 saying the key is forbidden, not that the JSON is invalid', async (_name, payload) => {
    app = await testApp();
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toMatch(SPEC_400);
    expect(res.json().error).toContain('forbidden key');
    expect(res.json().error).not.toContain('not valid JSON');
  });

  it('broken JSON is still "not valid JSON"', async () => {
    app = await testApp();
    const res = await post('{"__proto__": ');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('not valid JSON');
  });
});

describe('a body nested deeper than MAX_JSON_DEPTH', () => {
  // payload is level 2, so its values may hold 30 more levels.
  const withDepth = (levels: number) =>
    `{"apiKey":"${KEY}","formId":"contact","payload":{"message":"Hello, a quote please.","deep":${'['.repeat(levels)}"x"${']'.repeat(levels)}}}`;

  it(`is refused with the spec's 400 before it is parsed; ${MAX_JSON_DEPTH} levels are classified`, async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger });
    const ok = await post(withDepth(MAX_JSON_DEPTH - 2));
    expect(ok.statusCode).toBe(200);
    const res = await post(withDepth(MAX_JSON_DEPTH - 1));
    expect(res.statusCode).toBe(400);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN.origin);
    expect(res.json()).toEqual({
      error: `Missing or invalid parameters: apiKey, formId and either payload or fieldData (a JSON object) are required (the body is nested more than ${MAX_JSON_DEPTH} levels deep (the body object is level 1, payload and fieldData level 2))`,
    });
    expect(capture.lines.filter((l) => l.msg === 'verify').map((l) => l.outcome)).toEqual(['legitimate', 'invalid-params']);
  });

  it('a large one, as a raised BODY_LIMIT lets in, is refused the same way, arrays or objects', async () => {
    // 4 MB of nesting took 0.7-1.1 s of JSON.parse before (16 MB: 3-5 s), blocking every other request meanwhile.
    app = await testApp({ bodyLimit: 16 * 1024 * 1024 });
    for (const deep of ['['.repeat(2_000_000) + ']'.repeat(2_000_000), '{"a":'.repeat(700_000) + '1' + '}'.repeat(700_000)]) {
      const res = await post(`{"apiKey":"${KEY}","formId":"contact","payload":{"deep":${deep}}}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    }
  });
});

describe('a body holding more than MAX_JSON_VALUES values', () => {
  const TOO_WIDE = `Missing or invalid parameters: apiKey, formId and either payload or fieldData (a JSON object) are required (the body holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values (each string, number, boolean, null, array and object in payload and fieldData counts as one, at any depth))`;
  /** `n` values in payload: one-character fields, then the message. */
  const wide = (n: number, apiKey = KEY) => {
    const payload: Record<string, unknown> = {};
    for (let i = 0; i < n - 1; i++) payload[`f${i}`] = 'x';
    payload.message = 'Hello, a quote please.';
    return { apiKey, formId: 'contact', payload };
  };
  // 10,000 fields do not fit in the default 64 KiB: only a raised BODY_LIMIT lets such a body in.
  const bodyLimit = 1024 * 1024;

  it(`is refused with the spec's 400 before it is parsed; ${MAX_JSON_VALUES} values are classified`, async () => {
    const capture = captureLogger();
    const classifier = stubClassifier();
    app = await testApp({ classifier, logger: capture.logger, bodyLimit });
    const ok = await post(JSON.stringify(wide(MAX_JSON_VALUES)));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().submissionId).toMatch(UUID_V4);
    expect(classifier.calls).toEqual([wide(MAX_JSON_VALUES).payload]);
    const res = await post(JSON.stringify(wide(MAX_JSON_VALUES + 1)));
    expect(res.statusCode).toBe(400);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN.origin);
    expect(res.json()).toEqual({ error: TOO_WIDE });
    expect(classifier.calls).toHaveLength(1);
    expect(capture.lines.filter((l) => l.msg === 'verify').map((l) => l.outcome)).toEqual(['legitimate', 'invalid-params']);
  });

  it('counts payload and fieldData together, nested values too', async () => {
    app = await testApp({ bodyLimit });
    const half = MAX_JSON_VALUES / 2;
    // Each {"name","value"} pair is three values: the object and its two strings.
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: 'x' }));
    const body = (extra: number) => ({
      apiKey: KEY,
      formId: 'contact',
      payload: wide(half).payload,
      fieldData: { list: pairs((half - 1 + extra) / 3) },
    });
    expect((await post(JSON.stringify(body(0)))).statusCode).toBe(200);
    const res = await post(JSON.stringify(body(3)));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: TOO_WIDE });
  });

  it('costs nothing else: no review item, no rate limit or failed-key count, nothing classified', async () => {
    const classifier = stubClassifier();
    const offered: ReviewJob[] = [];
    app = await testApp({
      classifier,
      bodyLimit,
      tenants: tenants(tenantsFile({ rateLimit: { max: 1, windowSeconds: 60, algorithm: 'fixed' } })),
      keyFailureRule: { max: 1, windowMs: 60_000, algorithm: 'fixed' },
      reviewSink: { offer: (job) => (offered.push(job), { reason: 'spam', probability: 1 }), close: async () => {} },
    });
    for (const apiKey of [KEY, KEY, 'wrong-key', 'wrong-key'])
      expect((await post(JSON.stringify(wide(MAX_JSON_VALUES + 1, apiKey)))).statusCode).toBe(400);
    expect(classifier.calls).toHaveLength(0);
    expect(offered).toHaveLength(0);
    // The account's one request and the IP's one failed key are both still there.
    expect((await post(JSON.stringify(verifyBody()))).statusCode).toBe(200);
    expect((await post(JSON.stringify(verifyBody({ apiKey: 'wrong-key' })))).statusCode).toBe(401);
    expect(offered).toHaveLength(1);
  });

  it('a large one, as a raised BODY_LIMIT lets in, is refused the same way, fields or array items', async () => {
    // 16 MiB of small fields held the event loop ~4 s before (1.4 s JSON.parse, 1.7 s featurizing).
    app = await testApp({ bodyLimit: 16 * 1024 * 1024 });
    const fields = Array.from({ length: 1_100_000 }, (_, i) => `"f${i}":"x"`).join(',');
    for (const payload of [`{${fields}}`, `{"list":[${'0,'.repeat(8_000_000)}0]}`, `{"a":[${'[],'.repeat(5_000_000)}[]]}`]) {
      const res = await post(`{"apiKey":"${KEY}","formId":"contact","payload":${payload}}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: TOO_WIDE });
    }
  });
});

describe('a URL the router cannot decode', () => {
  it("gets the spec's 400 body with CORS, without echoing the path", async () => {
    app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/v1/verify%zz<script>', headers: ORIGIN, payload: verifyBody() });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toMatch(SPEC_400);
    expect(res.body).not.toContain('%zz');
    expect(res.body).not.toContain('script');
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN.origin);
  });
});

describe('a charset other than UTF-8', () => {
  it.each(['iso-8859-1', 'utf-16', '"latin1"', 'UTF-16LE'])("charset=%s is a 415 in the README's shape", async (charset) => {
    app = await testApp();
    const res = await post(JSON.stringify(verifyBody()), { 'content-type': `application/json; charset=${charset}` });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: expect.stringMatching(/^Unsupported content type/) });
  });

  it.each(['utf-8', 'UTF-8', '"utf-8"', 'Utf8'])('charset=%s is accepted', async (charset) => {
    app = await testApp();
    const res = await post(JSON.stringify(verifyBody({ payload: { message: 'Grüße aus Köln' } })), {
      'content-type': `application/json;charset=${charset}`,
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('malformed HTTP (answered by the clientErrorHandler)', () => {
  const body = JSON.stringify(verifyBody());
  it.each([
    ['two Content-Length headers', `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body}`],
    [
      'Content-Length with chunked',
      `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    ],
  ])("%s: the spec's 400 body, then the connection is closed", async (_name, rest) => {
    app = await testApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await rawRequest(app, `POST /v1/verify HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${rest}`);
    expect(res.closed).toBe(true);
    expect(res.statusCode).toBe(400);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const json = JSON.parse(res.body) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error).toMatch(SPEC_400);
  });
});

describe('malformed bytes after a whole request on the same connection', () => {
  it('leave that request its own answer, and the connection closes after it', async () => {
    // Before, the first request was classified (and could be queued for review) but its answer was the second's 400.
    const logs = captureLogger();
    app = await testApp({ logger: logs.logger });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify(verifyBody());
    const res = await rawRequest(
      app,
      `POST /v1/verify HTTP/1.1\r\nHost: localhost\r\nOrigin: https://example.com\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}BOGUS\r\n\r\n`,
    );
    expect(res.closed).toBe(true);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatch(/^connection: close$/im);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'legitimate', submissionId: expect.stringMatching(UUID_V4) });
    expect(logs.lines.filter((l) => l.msg === 'verify')).toHaveLength(1);
  });
});
