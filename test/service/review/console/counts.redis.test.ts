import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { reviewApp, signIn, type ReviewAppFixture } from '../app-fixture.ts';
import { fakeJob } from '../helpers.ts';

// What the console's header shows: every answer that carries the counts carries the sure spam a full queue turned away.
let f: ReviewAppFixture;
let cookie: string;

beforeAll(async () => {
  f = await reviewApp({ env: { REVIEW_MAX_PENDING: 2, REVIEW_NEAR_MEMBERS_MAX: 0 } });
  for (let i = 0; i < 5; i++) {
    const job = fakeJob({ accountId: 'acme', confidence: 0.99, fields: { message: `offer number ${i} ${'xyz'.repeat(i)}` } });
    await f.review.store.items.ingest({ ...job, queued: { reason: 'spam', probability: 1 } });
  }
  cookie = await signIn(f.app, ACME_TOKEN);
});

afterAll(async () => {
  await f?.close();
});

it('the list and the moderator answers both count the sure spam not queued at the full queue', async () => {
  const get = (url: string) => f.app.inject({ method: 'GET', url, headers: { cookie } });
  const expected = { pending: 2, labelled: 0, shed: 3 };
  expect((await get('/review/api/me')).json().counts).toEqual(expected);
  expect((await get('/review/api/list')).json().counts).toEqual(expected);
});
