import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { stubClassifier, testApp, verifyBody } from '../helpers.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp({ classifier: stubClassifier() });
});
afterAll(() => app.close());

describe('CORS for browser forms', () => {
  it('answers a preflight from any origin, allowing POST and Content-Type', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/v1/verify',
      headers: {
        origin: 'https://anything.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://anything.example');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type');
  });

  const cases: Array<[string, Record<string, unknown>, Record<string, string>, number]> = [
    ['success', verifyBody(), { origin: 'https://example.com' }, 200],
    ['blocked', verifyBody(), { origin: 'https://evil.net' }, 403],
    ['invalid key', verifyBody({ apiKey: 'nope' }), { origin: 'https://evil.net' }, 401],
    ['unknown form', verifyBody({ formId: 'nope' }), { origin: 'https://evil.net' }, 404],
    ['bad body', { apiKey: 'x' }, { origin: 'https://evil.net' }, 400],
  ];
  it.each(cases)('lets the page read the %s answer: Allow-Origin is its origin, Vary: Origin', async (_name, body, headers, status) => {
    const res = await app.inject({ method: 'POST', url: '/v1/verify', headers, payload: body });
    expect(res.statusCode).toBe(status);
    expect(res.headers['access-control-allow-origin']).toBe(headers.origin);
    expect(String(res.headers.vary)).toMatch(/Origin/);
    // A page must be able to read how long a 429 asks it to wait.
    expect(res.headers['access-control-expose-headers']).toBe('Retry-After');
  });

  it('does the same for 413 and 415 answers produced before the route runs', async () => {
    const big = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { origin: 'https://a.test' },
      payload: verifyBody({ payload: { m: 'x'.repeat(70_000) } }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.headers['access-control-allow-origin']).toBe('https://a.test');
    const text = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { origin: 'https://a.test', 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
    expect(text.headers['access-control-allow-origin']).toBe('https://a.test');
  });

  it('sends no CORS headers to a request without Origin', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { referer: 'https://example.com/x' },
      payload: verifyBody(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
