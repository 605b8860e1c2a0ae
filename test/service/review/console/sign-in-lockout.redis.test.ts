import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_HEADERS } from '../../../../service/review/console/headers.ts';
import { ACME_TOKEN, GLOBEX_TOKEN } from '../../../support/tenants.ts';
import { JSON_HEADERS, reviewApp, type ReviewAppFixture } from '../app-fixture.ts';

let f: ReviewAppFixture;

beforeAll(async () => {
  f = await reviewApp();
});
afterAll(async () => {
  await f.close();
});

// One office behind one NAT address: every moderator's request comes from it.
const OFFICE = '198.51.100.23';
const signIn = (token: string, remoteAddress = OFFICE) =>
  f.app.inject({ method: 'POST', url: '/review/api/session', headers: JSON_HEADERS, payload: { token }, remoteAddress });

describe('sign-in failures from one address', () => {
  it('10 wrong tokens from one address, then a right token from the same address signs in (every moderator’s)', async () => {
    for (let i = 0; i < 10; i++) expect((await signIn(`wrong-token-${i}`)).statusCode).toBe(401);
    // Past the limit, that address's wrong tokens are answered 429, with when to try again.
    const refused = await signIn('wrong-token-11');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().error).toMatch(/A valid token still signs in/);
    for (const token of [ACME_TOKEN, GLOBEX_TOKEN]) {
      const res = await signIn(token);
      expect(res.statusCode, token.slice(0, 5)).toBe(200);
      expect(res.cookies.find((c) => c.name === 'fg_review')).toBeDefined();
    }
    // Another address is not affected by this one's failures.
    expect((await signIn('wrong-token-x', '203.0.113.50')).statusCode).toBe(401);
  });
});

describe('the console headers on every answer under /review', () => {
  it('carries the CSP, frame and no-store headers on the router’s own 404s, on every method', async () => {
    for (const [method, url, headers] of [
      ['GET', '/review/nope', {}],
      ['GET', '/review/api/nope', {}],
      ['DELETE', '/review/api/me', JSON_HEADERS],
      ['POST', '/review/api/nope', JSON_HEADERS],
      ['GET', '/review/favicon.ico', {}],
    ] as const) {
      const res = await f.app.inject({ method, url, headers, ...(method === 'GET' ? {} : { payload: {} }) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) expect(res.headers[name], `${name} on ${method} ${url}`).toBe(value);
    }
  });

  it('serves its icon, so a page load asks for nothing that is not there', async () => {
    const page = await f.app.inject({ method: 'GET', url: '/review' });
    expect(page.body).toContain('<link rel="icon" href="/review/favicon.svg"');
    const icon = await f.app.inject({ method: 'GET', url: '/review/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });
});

describe('the one authentication hook', () => {
  it('answers 401 to every console API route in the OpenAPI document without a session, sign-in and sign-out aside', async () => {
    const doc = f.app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> };
    const id = '00000000-0000-4000-8000-000000000000';
    const checked: string[] = [];
    for (const [route, methods] of Object.entries(doc.paths)) {
      if (!route.startsWith('/review/api/') || route === '/review/api/session' || route === '/review/api/sign-out') continue;
      for (const method of Object.keys(methods)) {
        const url = route.replace('{id}', id);
        const res = await f.app.inject({
          method: method.toUpperCase() as 'GET' | 'POST',
          url,
          headers: JSON_HEADERS,
          ...(method === 'get' ? {} : { payload: {} }),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        checked.push(`${method} ${route}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(12);
  });
});
