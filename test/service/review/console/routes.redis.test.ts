import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../../../service/review/console/headers.ts';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../../../core/fs/repo-root.ts';
import { CONSOLE_FILES, CSRF_HEADER } from '../../../../service/review/console/routes.ts';
import { parseTenants } from '../../../../service/tenants/load.ts';
import { ACME_TOKEN, KEY as API_KEY, GLOBEX_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { JSON_HEADERS, reviewApp, signIn as signInAs, type ReviewAppFixture } from '../app-fixture.ts';
import { captureLines } from '../../../support/logs.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

let f: ReviewAppFixture;
const logs = captureLines();

beforeAll(async () => {
  f = await reviewApp({ logger: logs.logger });
});
afterAll(async () => {
  await f.close();
});

const json = JSON_HEADERS;

const signIn = (token: string): Promise<string> => signInAs(f.app, token);

describe('the console page', () => {
  it('is served with a strict CSP and no inline script', async () => {
    const res = await f.app.inject({ method: 'GET', url: '/review' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain('<script type="module" src="/review/app.js"></script>');
    expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=/i);
  });

  it('serves every file of its assets folder, each module as JavaScript and none writing HTML', async () => {
    // A module added beside app.js but not listed would load as a 404 and stop the whole page: the folder and the
    // served files are one list.
    expect([...CONSOLE_FILES].sort()).toEqual(readdirSync(path.join(repoRoot, 'service/review/console/assets')).sort());
    const modules = CONSOLE_FILES.filter((name) => name.endsWith('.js'));
    expect(modules).toContain('app.js');
    for (const name of modules) {
      const js = await f.app.inject({ method: 'GET', url: `/review/${name}` });
      expect(js.statusCode, name).toBe(200);
      expect(js.headers['content-type'], name).toMatch(/^text\/javascript/);
      expect(js.headers['content-security-policy'], name).toBe(CONSOLE_CSP);
      expect(js.body, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
      // Every module it imports is one of the served files.
      for (const [, imported] of js.body.matchAll(/^import [^;]* from '\.\/([a-z-]+\.js)';$/gm))
        expect(modules, `${name} imports ${imported}`).toContain(imported);
    }
  });

  it('is not served when no moderators are configured', async () => {
    const off = await reviewApp({ withModerators: false });
    try {
      const page = await off.app.inject({ method: 'GET', url: '/review' });
      expect(page.statusCode).toBe(404);
      expect(page.json().error).toMatch(/no moderators are configured\. Add one with: npm run tenants -- add-moderator/);
      const res = await off.app.inject({ method: 'POST', url: '/review/api/session', headers: json, payload: { token: ACME_TOKEN } });
      expect(res.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('signing in', () => {
  it('sets an HttpOnly SameSite=Strict session cookie for a right token; a wrong one gets nothing', async () => {
    const wrong = await f.app.inject({ method: 'POST', url: '/review/api/session', headers: json, payload: { token: `${ACME_TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const res = await f.app.inject({ method: 'POST', url: '/review/api/session', headers: json, payload: { token: ACME_TOKEN } });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/review/);
    expect(setCookie).not.toContain(ACME_TOKEN);
    expect(logs.text()).not.toContain(ACME_TOKEN);
    expect(logs.text()).not.toContain('moderator-token');
  });

  it('refuses state-changing calls without the JSON content type and the custom header (CSRF)', async () => {
    const cookie = await signIn(ACME_TOKEN);
    const job = fakeJob({ accountId: 'acme' });
    await f.review.store.items.ingest(job);
    const url = `/review/api/items/${job.submissionId}/label`;
    const noHeader = await f.app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/json' },
      payload: { label: 'spam' },
    });
    expect(noHeader.statusCode).toBe(403);
    const form = await f.app.inject({
      method: 'POST',
      url,
      headers: { cookie, [CSRF_HEADER]: '1', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'label=spam',
    });
    expect([403, 415]).toContain(form.statusCode);
    expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
    const ok = await f.app.inject({ method: 'POST', url, headers: { ...json, cookie }, payload: { label: 'spam' } });
    expect(ok.statusCode).toBe(200);
    expect((await f.review.store.labels.getLabel('acme', job.submissionId))?.moderatorId).toBe('alice');
  });

  it('answers 401 without a session, after sign-out, and once the moderator is removed from the tenants file', async () => {
    expect((await f.app.inject({ method: 'GET', url: '/review/api/list' })).statusCode).toBe(401);
    const cookie = await signIn(ACME_TOKEN);
    expect((await f.app.inject({ method: 'GET', url: '/review/api/me', headers: { cookie } })).statusCode).toBe(200);
    const out = await f.app.inject({ method: 'POST', url: '/review/api/sign-out', headers: { ...json, cookie }, payload: {} });
    expect(out.statusCode).toBe(200);
    expect((await f.app.inject({ method: 'GET', url: '/review/api/me', headers: { cookie } })).statusCode).toBe(401);

    const again = await signIn(ACME_TOKEN);
    const original = f.tenants.current;
    const file = tenantsFile();
    file.accounts[0] = { ...file.accounts[0]!, moderators: [] };
    f.tenants.current = parseTenants(JSON.stringify(file), 'edited');
    try {
      expect((await f.app.inject({ method: 'GET', url: '/review/api/me', headers: { cookie: again } })).statusCode).toBe(401);
    } finally {
      f.tenants.current = original;
    }
  });
});

describe('what a moderator sees', () => {
  it('only their account: the list, a look-up and a label of another account’s item all fail', async () => {
    const acme = fakeJob({ accountId: 'acme', formId: 'newsletter' });
    const globex = fakeJob({ accountId: 'globex', formId: 'globex-form' });
    await f.review.store.items.ingest(acme);
    await f.review.store.items.ingest(globex);
    const cookie = await signIn(ACME_TOKEN);
    const list = (await f.app.inject({ method: 'GET', url: '/review/api/list?limit=200', headers: { cookie } })).json<{
      rows: { accountId: string; submissionId: string }[];
    }>();
    expect(list.rows.some((i) => i.submissionId === acme.submissionId)).toBe(true);
    expect(list.rows.every((i) => i.accountId === 'acme')).toBe(true);
    expect((await f.app.inject({ method: 'GET', url: `/review/api/items/${globex.submissionId}`, headers: { cookie } })).statusCode).toBe(
      404,
    );
    const label = await f.app.inject({
      method: 'POST',
      url: `/review/api/items/${globex.submissionId}/label`,
      headers: { ...json, cookie },
      payload: { label: 'spam' },
    });
    expect(label.statusCode).toBe(404);
    expect(await f.review.store.labels.getLabel('globex', globex.submissionId)).toBeUndefined();
    const gina = await signIn(GLOBEX_TOKEN);
    expect(
      (await f.app.inject({ method: 'GET', url: `/review/api/items/${globex.submissionId}`, headers: { cookie: gina } })).statusCode,
    ).toBe(200);
  });

  it('filters by form and verdict', async () => {
    const cookie = await signIn(ACME_TOKEN);
    const res = await f.app.inject({ method: 'GET', url: '/review/api/list?form=newsletter&status=spam', headers: { cookie } });
    const body = res.json<{ rows: { formId: string; verdict: { status: string } }[] }>();
    expect(body.rows.length).toBeGreaterThan(0);
    expect(body.rows.every((i) => i.formId === 'newsletter' && i.verdict.status === 'spam')).toBe(true);
    expect((await f.app.inject({ method: 'GET', url: '/review/api/list?status=maybe', headers: { cookie } })).statusCode).toBe(400);
  });
});

describe('from a verify request to the console', () => {
  it('queues a spam verdict of POST /v1/verify and shows it to the account’s moderator', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload: { message: 'Best casino bonus here' } },
    });
    expect(res.statusCode).toBe(200);
    const { submissionId, status } = res.json<{ submissionId: string; status: string }>();
    expect(status).toBe('spam');
    const clean = await f.app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload: { message: 'Can I get a quote?' } },
    });
    const cleanId = clean.json<{ submissionId: string }>().submissionId;
    await f.review.sink.flush();
    await until(async () => (await f.review.store.items.get('acme', submissionId)) !== undefined, 'spam verdict in review');
    const cookie = await signIn(ACME_TOKEN);
    const shown = await f.app.inject({ method: 'GET', url: `/review/api/items/${submissionId}`, headers: { cookie } });
    expect(shown.json<{ item: { fields: unknown; verdict: { reasoning: string } } }>().item).toMatchObject({
      fields: { message: 'Best casino bonus here' },
      verdict: { reasoning: 'Mentions a casino.' },
    });
    // The confident legitimate one is not queued, but its fields are kept for a few days: a moderator can report it as a miss.
    await until(async () => (await f.review.store.items.get('acme', cleanId)) !== undefined, 'verdict kept for look-up');
    const looked = await f.app.inject({ method: 'GET', url: `/review/api/items/${cleanId}`, headers: { cookie } });
    expect(looked.json<{ queued: boolean; fieldsKept: boolean; item: { fields: unknown; verdict: { status: string } } }>()).toMatchObject({
      queued: false,
      fieldsKept: true,
      item: { fields: { message: 'Can I get a quote?' }, verdict: { status: 'legitimate' } },
    });
    const label = await f.app.inject({
      method: 'POST',
      url: `/review/api/items/${cleanId}/label`,
      headers: { ...json, cookie },
      payload: { label: 'spam' },
    });
    expect(label.statusCode).toBe(200);
    expect(await f.review.store.labels.getLabel('acme', cleanId)).toMatchObject({
      label: 'spam',
      modelStatus: 'legitimate',
      fields: { message: 'Can I get a quote?' },
    });
    expect((await f.review.store.items.counts('acme')).pending).toBeGreaterThan(0);
    expect((await f.review.store.items.listPending('acme', {}, 0, 200)).some((i) => i.submissionId === cleanId)).toBe(false);
  });
});

describe('a console URL the router cannot decode', () => {
  it("gets a 400 with the console's headers and no CORS, not the verify endpoint's answer", async () => {
    const res = await f.app.inject({ method: 'GET', url: '/review/api/items/%zz', headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Bad request: the URL is not valid (bad percent-encoding in the path)' });
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
