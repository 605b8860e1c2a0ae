import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp } from '../../../service/admin.ts';
import { ORIGIN, testApp, verifyBody } from '../helpers.ts';

let app: FastifyInstance;
let admin: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
  admin = await buildAdminApp(app);
});
afterAll(async () => {
  await admin.close();
  await app.close();
});

describe('/metrics (on the admin server)', () => {
  it('serves Prometheus text with requests by outcome, latency, verdicts by status and the model version', async () => {
    await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: { origin: 'https://evil.net' }, payload: verifyBody() });
    await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody({ apiKey: 'bad' }) });
    const res = await admin.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toContain('formguard_verify_requests_total{outcome="legitimate"} 1');
    expect(res.body).toContain('formguard_verify_requests_total{outcome="blocked"} 1');
    expect(res.body).toContain('formguard_verify_requests_total{outcome="invalid-key"} 1');
    expect(res.body).toMatch(/formguard_verify_duration_seconds_bucket\{le="[\d.]+",outcome="legitimate"\} 1/);
    expect(res.body).toContain('formguard_verdicts_total{status="legitimate"} 1');
    expect(res.body).toContain('formguard_model_info{version="stub-1",feature_version="stub",role="active"} 1');
  });
});
