import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { KEY } from '../../support/tenants.ts';
import { ORIGIN, captureLogger, stubClassifier, testApp, verifyBody } from '../helpers.ts';

const SECRET_FIELD = 'zebra-unicorn-4417-private-text';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('one structured log line per verify request', () => {
  it('carries submissionId, accountId, formId, outcome, confidence, model version and processing time', async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger });
    const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    const lines = capture.lines.filter((l) => l.msg === 'verify');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      submissionId: res.json().submissionId,
      accountId: 'acme',
      formId: 'contact',
      outcome: 'legitimate',
      confidence: 0.9,
      modelVersion: 'stub-1',
      statusCode: 200,
    });
    expect(typeof lines[0]?.processingTime).toBe('number');
  });

  it("has the request id, and no field beyond the audit ones and pino's own", async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    const line = capture.lines.find((l) => l.msg === 'verify');
    expect(Object.keys(line ?? {}).sort()).toEqual(
      [
        'level',
        'time',
        'service',
        'reqId',
        'msg',
        'submissionId',
        'accountId',
        'formId',
        'outcome',
        'confidence',
        'modelVersion',
        'processingTime',
        'statusCode',
      ].sort(),
    );
    expect(line?.reqId).toMatch(/^req-/);
  });

  it("shares the request id with the request's other lines (the error logged by request.log)", async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger, classifier: stubClassifier('throw') });
    const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    expect(res.statusCode).toBe(500);
    const failed = capture.lines.find((l) => l.msg === 'request failed; the submission was not processed');
    const verify = capture.lines.find((l) => l.msg === 'verify');
    expect(failed?.reqId).toMatch(/^req-/);
    expect(verify?.reqId).toBe(failed?.reqId);
    expect(verify?.submissionId).toBe(failed?.submissionId);
    // The 500 body and the log line report one processing time.
    expect(verify?.processingTime).toBe(res.json().processingTime);
  });

  it('names the client IP on failed-key lines (what the failed-key limit counts), and only there', async () => {
    const capture = captureLogger();
    app = await testApp({
      logger: capture.logger,
      trustProxy: { hops: 1 },
      keyFailureRule: { max: 1, windowMs: 60_000, algorithm: 'fixed' },
    });
    const headers = { ...ORIGIN, 'x-forwarded-for': '198.51.100.7' };
    await app.inject({ method: 'POST', url: '/v1/verify', headers, payload: verifyBody({ apiKey: `${KEY}-wrong` }) });
    await app.inject({ method: 'POST', url: '/v1/verify', headers, payload: verifyBody({ apiKey: `${KEY}-wrong` }) });
    await app.inject({ method: 'POST', url: '/v1/verify', headers, payload: verifyBody() });
    await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { ...ORIGIN, 'x-forwarded-for': '203.0.113.9' },
      payload: verifyBody(),
    });
    const lines = capture.lines.filter((l) => l.msg === 'verify');
    expect(lines.map((l) => [l.outcome, l.clientIp])).toEqual([
      ['invalid-key', '198.51.100.7'],
      ['key-guessing', '198.51.100.7'],
      ['key-guessing', '198.51.100.7'],
      ['legitimate', undefined],
    ]);
  });

  it('logs refused requests too, with their outcome', async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: { origin: 'https://evil.net' }, payload: verifyBody() });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    const lines = capture.lines.filter((l) => l.msg === 'verify');
    expect(lines.map((l) => l.outcome)).toEqual(['blocked', 'unsupported-media-type']);
    // Answers made by the error handler carry their processing time too.
    expect(lines.map((l) => typeof l.processingTime)).toEqual(['number', 'number']);
  });
});

describe('log redaction: never the API key, never the submitted fields', () => {
  it('keeps the key and a field value out of every log line, whatever the outcome', async () => {
    const capture = captureLogger();
    app = await testApp({ logger: capture.logger });
    const body = verifyBody({ payload: { message: SECRET_FIELD } });
    const send = (payload: string, headers: Record<string, string> = ORIGIN) =>
      app!.inject({ method: 'POST', url: '/v1/verify', headers: { 'content-type': 'application/json', ...headers }, payload });
    await send(JSON.stringify(body));
    await send(JSON.stringify({ ...body, apiKey: `${KEY}-wrong` }));
    await send(JSON.stringify(body), { origin: 'https://evil.net' });
    await send(`{"apiKey":"${KEY}","formId":"contact","payload":{"message":"${SECRET_FIELD}"`); // malformed: the parser quotes it
    await send(JSON.stringify({ apiKey: KEY, payload: SECRET_FIELD })); // invalid: schema error
    await app.close();

    const thrower = captureLogger();
    app = await testApp({ logger: thrower.logger, classifier: stubClassifier('throw') });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: body });

    for (const c of [capture, thrower]) {
      expect(c.lines.length).toBeGreaterThan(0);
      expect(c.text()).not.toContain(KEY);
      expect(c.text()).not.toContain(SECRET_FIELD);
    }
  });

  it('redacts keys and fields if some code ever logs them by name', () => {
    const capture = captureLogger();
    capture.logger.info(
      { apiKey: KEY, payload: { m: SECRET_FIELD }, job: { fields: { m: SECRET_FIELD }, fieldData: { m: SECRET_FIELD } } },
      'oops',
    );
    expect(capture.text()).not.toContain(KEY);
    expect(capture.text()).not.toContain(SECRET_FIELD);
    expect(capture.text()).toContain('[redacted]');
  });
});
