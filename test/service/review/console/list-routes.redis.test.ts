import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTenants } from '../../../../service/tenants/load.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN, KEY as API_KEY, GLOBEX_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { JSON_HEADERS, reviewApp, signIn, type ReviewAppFixture } from '../app-fixture.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// The console's list, search, bulk and report API through the real buildApp: filters, validation, and account isolation.
let f: ReviewAppFixture;
let acme: string;
let globex: string;
const DAY = 86_400_000;
let jobs: ReviewJob[];

beforeAll(async () => {
  f = await reviewApp();
  jobs = [0, 1, 2, 3, 4].map((d) =>
    fakeJob({
      accountId: 'acme',
      receivedAt: new Date(Date.now() - (5 - d) * DAY).toISOString(),
      confidence: 0.9 + d / 100,
      fields: { message: `day ${d} saffron` },
    }),
  );
  for (const job of jobs) await f.review.store.items.ingest(job);
  await f.review.store.items.ingest(
    fakeJob({ accountId: 'globex', formId: 'globex-form', confidence: 0.999, fields: { message: 'globex saffron' } }),
  );
  acme = await signIn(f.app, ACME_TOKEN);
  globex = await signIn(f.app, GLOBEX_TOKEN);
});

afterAll(async () => {
  await f?.close();
});

const get = (url: string, cookie: string) => f.app.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, cookie: string, payload: unknown) =>
  f.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, cookie }, payload: payload as object });
const idsOf = (body: { rows: { submissionId: string }[] }) => body.rows.map((r) => r.submissionId);

describe('GET /review/api/list', () => {
  it('ranges by date, sorts by time or confidence, pages with a total', async () => {
    const from = new Date(Date.now() - 4.5 * DAY).toISOString();
    const to = new Date(Date.now() - 1.5 * DAY).toISOString();
    const ranged = (await get(`/review/api/list?from=${from}&to=${to}`, acme)).json();
    expect(idsOf(ranged)).toEqual(jobs.slice(1, 4).map((j) => j.submissionId));
    expect(ranged.total).toBe(3);
    const byConfidence = (await get(`/review/api/list?sort=confidence-high&from=${from}&to=${to}`, acme)).json();
    expect(idsOf(byConfidence)).toEqual(
      jobs
        .slice(1, 4)
        .map((j) => j.submissionId)
        .reverse(),
    );
    const page = (await get('/review/api/list?sort=newest&limit=2&offset=2', acme)).json();
    expect(idsOf(page)).toEqual([jobs[2]!.submissionId, jobs[1]!.submissionId]);
    expect(page).toMatchObject({ total: 5, summary: { pending: 5, byStatus: { spam: 5, legitimate: 0 }, byForm: { contact: 5 } } });
    expect(page.rows[0]).toMatchObject({ message: 'day 2 saffron', email: null, queued: true, label: null });
  });

  it('refuses a malformed query with 400 and says what is wrong', async () => {
    for (const q of ['sort=random', 'limit=0', 'from=yesterday', 'status=maybe']) {
      const res = await get(`/review/api/list?${q}`, acme);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error, q).toMatch(/^Bad request: /);
    }
    expect((await post('/review/api/bulk/label', acme, { ids: ['not-a-uuid'], label: 'spam' })).statusCode).toBe(400);
    expect((await post('/review/api/bulk/confirm', acme, { min: 2 })).statusCode).toBe(400);
  });

  it('keeps accounts apart: search, list, bulk and confirm reach only the moderator’s own account', async () => {
    expect(idsOf((await get('/review/api/list?q=saffron', acme)).json())).toHaveLength(5);
    const theirs = (await get('/review/api/list?q=saffron', globex)).json();
    expect(theirs.rows.map((r: { message: string }) => r.message)).toEqual(['globex saffron']);
    expect((await get('/review/api/list', globex)).json()).toMatchObject({ total: 1, summary: { byForm: { 'globex-form': 1 } } });
    // A form id of another account names nothing.
    expect((await get('/review/api/list?form=contact', globex)).json()).toMatchObject({ total: 0, rows: [] });
    expect((await get('/review/api/bulk/confirm?min=0.9&form=contact', globex)).json()).toEqual({ matching: 0, takes: 0 });
    expect((await get('/review/api/bulk/confirm?min=0.99', globex)).json()).toEqual({ matching: 1, takes: 1 });
    // Bulk with acme's ids from globex's session labels nothing.
    const bulk = await post('/review/api/bulk/label', globex, { ids: jobs.map((j) => j.submissionId), label: 'legitimate' });
    expect(bulk.json()).toMatchObject({ labelled: 0, skipped: 5 });
    const confirm = await post('/review/api/bulk/confirm', globex, { min: 0 });
    expect(confirm.json()).toMatchObject({ labelled: 1 });
    for (const job of jobs) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
    for (const url of ['/review/api/list', '/review/api/bulk/confirm?min=0.5', '/review/api/dashboard'])
      expect((await f.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    expect(
      (
        await f.app.inject({
          method: 'POST',
          url: '/review/api/bulk/label',
          headers: JSON_HEADERS,
          payload: { ids: [jobs[0]!.submissionId], label: 'spam' },
        })
      ).statusCode,
    ).toBe(401);
  });
});

describe('an account’s own review band in the tenants file', () => {
  it('queues a confident legitimate verdict under the account’s band, while another account keeps the service’s', async () => {
    const file = tenantsFile();
    file.accounts[0] = { ...file.accounts[0]!, review: { band: 0.99 } };
    f.tenants.current = parseTenants(JSON.stringify(file), 'test');
    const res = await f.app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload: { message: 'A normal question about opening hours' } },
    });
    const { submissionId, status, confidence } = res.json<{ submissionId: string; status: string; confidence: number }>();
    expect([status, confidence]).toEqual(['legitimate', 0.97]);
    await f.review.sink.flush();
    await until(async () => (await f.review.store.items.get('acme', submissionId))?.queued === true, 'queued under the account band');
    expect(() => parseTenants(JSON.stringify({ accounts: [{ ...file.accounts[0], review: { band: 2 } }] }), 'test')).toThrow();
    expect(() => parseTenants(JSON.stringify({ accounts: [{ ...file.accounts[0], review: { sampelRate: 0.1 } }] }), 'test')).toThrow();
  });
});
