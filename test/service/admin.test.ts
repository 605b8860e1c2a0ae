import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp } from '../../service/admin.ts';
import { testApp } from './helpers.ts';

const opened: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of opened.splice(0).reverse()) await a.close();
});

async function apps(): Promise<{ app: FastifyInstance; admin: FastifyInstance }> {
  const app = await testApp();
  opened.push(app);
  const admin = await buildAdminApp(app);
  opened.push(admin);
  return { app, admin };
}

describe('the admin server (ADMIN_PORT): /metrics and /docs, kept off the public port', () => {
  it('the public app answers 404 for /metrics and /docs, in its usual {error} body', async () => {
    const { app } = await apps();
    for (const url of ['/metrics', '/docs', '/docs/', '/docs/json', '/docs/yaml', '/docs/static/index.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ error: `Route GET ${url} not found` });
    }
  });

  it('serves the OpenAPI description of the public /v1/verify, generated from the zod schemas, read-only', async () => {
    const { admin } = await apps();
    const res = await admin.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc.paths)).toEqual(['/v1/verify']);
    const post = doc.paths['/v1/verify'].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(body)).toContain('"apiKey"');
    expect(body.anyOf.map((s: { required: string[] }) => s.required.sort())).toEqual([
      ['apiKey', 'formId', 'payload'],
      ['apiKey', 'fieldData', 'formId'],
    ]);
    for (const code of ['200', '400', '401', '403', '404', '413', '415', '429', '500', '503']) expect(post.responses[code]).toBeDefined();
    const html = await admin.inject({ method: 'GET', url: '/docs/' });
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/text\/html/);
    // "Try it out" would post to the admin server, which has no /v1/verify.
    const init = await admin.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('"supportedSubmitMethods":[]');
  });

  it('serves /metrics and the docs only: verify, health and anything else are 404 there', async () => {
    const { admin } = await apps();
    expect((await admin.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    for (const [method, url] of [
      ['POST', '/v1/verify'],
      ['GET', '/readyz'],
      ['GET', '/healthz'],
      ['GET', '/review/'],
    ] as const) {
      const res = await admin.inject({ method, url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ error: `Route ${method} ${url} not found` });
    }
  });
});
