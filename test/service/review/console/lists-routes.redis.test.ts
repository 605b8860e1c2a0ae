import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClassifier } from '../../../../core/classifier/load.ts';
import { repoRoot } from '../../../../core/fs/repo-root.ts';
import { JSON_HEADERS, reviewApp, signIn, type ReviewAppFixture } from '../app-fixture.ts';
import { ACME_TOKEN, GLOBEX_TOKEN, KEY as API_KEY } from '../../../support/tenants.ts';
import { until } from '../../../support/until.ts';

let f: ReviewAppFixture;
let acme: string;
let globex: string;
beforeAll(async () => {
  f = await reviewApp({ classifier: await loadClassifier({ modelsDir: path.join(repoRoot, 'models') }) });
  acme = await signIn(f.app, ACME_TOKEN);
  globex = await signIn(f.app, GLOBEX_TOKEN);
});
afterAll(() => f.close());

const SPAM_FIELDS = {
  name: 'Casino Bonus',
  email: 'promo@spam-mail.example',
  message: 'Win big at our casino! Free spins every day, visit https://www.lucky-casino.example/bonus and http://cdn.tracker.example/x',
};

function add(cookie: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) {
  return f.app.inject({ method: 'POST', url: '/review/api/lists', headers: { ...headers, cookie }, payload: body as object });
}
function entries(cookie: string, query = '') {
  return f.app.inject({ method: 'GET', url: `/review/api/lists${query}`, headers: { cookie } });
}
function verify(payload: Record<string, unknown>) {
  return f.app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { origin: 'https://example.com' },
    payload: { apiKey: API_KEY, formId: 'contact', payload },
  });
}

describe('the console API for allow and block lists', () => {
  it('refuses a change without the CSRF header or signed out, and changes nothing', async () => {
    const body = { list: 'block', kind: 'sender', value: 'x@example.com' };
    expect((await add(acme, body, { 'content-type': 'application/json' })).statusCode).toBe(403);
    expect((await add('', body)).statusCode).toBe(401);
    expect((await entries(acme)).json().entries).toEqual([]);
  });

  it('refuses a malformed entry with a message that says what is expected, and changes nothing', async () => {
    for (const body of [
      { list: 'block', kind: 'sender', value: 'not an address' },
      { list: 'block', kind: 'link-domain', value: 'exa mple.com' },
      { list: 'deny', kind: 'sender', value: 'x@example.com' },
      { list: 'block', kind: 'sender' },
    ]) {
      const res = await add(acme, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/a sender is an e-mail address \(name@example\.com\), a domain a host name/);
    }
    expect((await entries(acme)).json().total).toBe(0);
  });

  it("keeps each account's lists to its moderators", async () => {
    const res = await add(acme, { list: 'block', kind: 'email-domain', value: 'Spam-Mail.example' });
    expect(res.json()).toEqual({ result: 'added', list: 'block', kind: 'email-domain', value: 'spam-mail.example' });
    expect((await entries(acme)).json()).toMatchObject({ total: 1, size: 1, entries: [{ value: 'spam-mail.example', by: 'alice' }] });
    expect((await entries(globex)).json()).toMatchObject({ total: 0, size: 0, entries: [] });
    // Removing the same entry from the other account removes nothing of acme's.
    const gone = await f.app.inject({
      method: 'POST',
      url: '/review/api/lists/remove',
      headers: { ...JSON_HEADERS, cookie: globex },
      payload: { list: 'block', kind: 'email-domain', value: 'spam-mail.example' },
    });
    expect(gone.json().result).toBe('absent');
    expect((await entries(acme)).json().total).toBe(1);
  });

  it("offers an item's sender, its domain and its link domains, marks what is listed; another account's item is not found", async () => {
    // Not the blocked domain's sender: a list decision is not queued, a model verdict of spam is.
    const other = await verify({ ...SPAM_FIELDS, email: 'someone@elsewhere.example' });
    const otherId = other.json().submissionId as string;
    await until(async () => (await f.review.store.items.get('acme', otherId)) !== undefined, 'the item to be stored');
    const c = await f.app.inject({ method: 'GET', url: `/review/api/items/${otherId}/lists`, headers: { cookie: acme } });
    expect(c.statusCode).toBe(200);
    expect(c.json().candidates).toEqual([
      { kind: 'sender', value: 'someone@elsewhere.example', listed: null },
      { kind: 'email-domain', value: 'elsewhere.example', listed: null },
      { kind: 'link-domain', value: 'lucky-casino.example', listed: null },
      { kind: 'link-domain', value: 'tracker.example', listed: null },
    ]);
    expect((await f.app.inject({ method: 'GET', url: `/review/api/items/${otherId}/lists`, headers: { cookie: globex } })).statusCode).toBe(
      404,
    );
  });

  it('answers verify from the list, not queued for review, counted on the dashboard and in the metrics', async () => {
    await until(() => f.review.lists.size('acme') === 1, 'the block entry to reach the copy');
    const res = await verify(SPAM_FIELDS);
    expect(res.json()).toMatchObject({ status: 'spam', confidence: 1 });
    expect(res.json().reasoning).toMatch(/^Spam: the sender's e-mail domain spam-mail\.example is on your block list/);
    await add(acme, { list: 'allow', kind: 'sender', value: 'ada@example.com' });
    await until(() => f.review.lists.size('acme') === 2, 'the allow entry to reach the copy');
    const ok = await verify({ name: 'Ada', email: 'ada@example.com', message: 'Casino night for our staff party: can you cater for 40?' });
    expect(ok.json()).toMatchObject({ status: 'legitimate', confidence: 1 });
    await f.review.sink.flush();
    expect(await f.review.store.items.get('acme', res.json().submissionId as string)).toBeUndefined();
    await f.review.traffic.flush();
    const d = await f.app.inject({ method: 'GET', url: '/review/api/dashboard?days=1', headers: { cookie: acme } });
    expect(d.json().total).toMatchObject({ blockList: 1, allowList: 1 });
    const metrics = await f.registry.getSingleMetricAsString('formguard_list_decisions_total');
    expect(metrics).toMatch(/formguard_list_decisions_total\{list="block",kind="email-domain"\} 1/);
    expect(metrics).toMatch(/formguard_list_decisions_total\{list="allow",kind="sender"\} 1/);
  });

  it('refuses an entry past LISTS_MAX_ENTRIES with 409 and says why', async () => {
    const store = f.review.listsStore;
    const fill = Array.from({ length: store.maxEntries }, (_, i) => [`block sender filler-${i}@example.net`, '{"by":"t","at":0}']).flat();
    await f.redis.hset(store.listsKey('globex'), ...fill);
    const res = await add(globex, { list: 'block', kind: 'sender', value: 'one-more@example.net' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/hold 10000 entries, the most LISTS_MAX_ENTRIES allows/);
    expect((await entries(globex, '?q=one-more')).json().total).toBe(0);
  });
});
