import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { parseTenants } from '../../../../service/tenants/load.ts';
import { ACME_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { consoleApp, JSON_HEADERS, signIn, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob, sha256 } from '../helpers.ts';

// Two moderators of one account on the same item: the one who acts on a stale screen is told, and overwrites nothing.
const BOB_TOKEN = 'acme-second-moderator-token-77aa01';
let f: ConsoleAppFixture;

beforeAll(async () => {
  f = await consoleApp();
  const file = tenantsFile();
  const acme = file.accounts[0]!;
  file.accounts[0] = { ...acme, moderators: [...(acme.moderators ?? []), { id: 'bob', sha256: sha256(BOB_TOKEN) }] };
  f.tenants.current = parseTenants(JSON.stringify(file), 'two moderators');
});

afterAll(async () => {
  await f?.close();
});

const labelCall = (cookie: string, id: string, payload: object) =>
  f.app.inject({ method: 'POST', url: `/review/api/items/${id}/label`, headers: { ...JSON_HEADERS, cookie }, payload });

/** The app's review store with its clock stopped at `labelledAt`: a label made in the same millisecond (another instance). */
const sameInstant = (labelledAt: string) =>
  new ReviewStore(f.redis, { prefix: f.prefix, retentionDays: 30, now: () => Date.parse(labelledAt) });

describe('two moderators labelling the same item', () => {
  it('the API refuses a label made on a stale view with 409 and what the label is now; without `expected` it relabels', async () => {
    const job = fakeJob({ accountId: 'acme' });
    await f.review.store.items.ingest(job);
    const alice = await signIn(f.app, ACME_TOKEN);
    const bob = await signIn(f.app, BOB_TOKEN);
    const first = await labelCall(alice, job.submissionId, { label: 'spam', expected: null });
    expect(first.statusCode).toBe(200);
    const { labelId, labelledAt } = first.json<{ labelId: string; labelledAt: string }>();

    // Bob still sees it pending.
    const stale = await labelCall(bob, job.submissionId, { label: 'legitimate', expected: null });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({
      error: 'Not labelled: alice labelled it spam meanwhile. Label it again if you mean to replace that label.',
      label: { label: 'spam', moderatorId: 'alice', labelledAt, labelId },
    });
    expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({
      label: 'spam',
      moderatorId: 'alice',
      labelledAt,
    });

    // Having seen alice's label, bob may replace it (named by its time, as a page loaded before labels had ids does).
    const informed = await labelCall(bob, job.submissionId, { label: 'legitimate', expected: labelledAt });
    expect(informed.statusCode).toBe(200);
    expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({ label: 'legitimate', moderatorId: 'bob' });

    // Bob undoes: alice's label is back, so a label sent against bob's (gone) label is refused too.
    await f.review.store.labels.undo('acme', 'bob');
    const afterUndo = await labelCall(alice, job.submissionId, {
      label: 'spam',
      expected: informed.json<{ labelledAt: string }>().labelledAt,
    });
    expect(afterUndo.statusCode).toBe(409);
    expect(afterUndo.json<{ label: { moderatorId: string } }>().label.moderatorId).toBe('alice');

    expect((await labelCall(alice, job.submissionId, { label: 'spam', expected: 'yesterday' })).statusCode).toBe(400);
    expect((await labelCall(alice, job.submissionId, { label: 'legitimate' })).statusCode).toBe(200);
  });

  it('the API tells a label made in the same millisecond as the one seen from it, by its labelId', async () => {
    const job = fakeJob({ accountId: 'acme' });
    await f.review.store.items.ingest(job);
    const alice = await signIn(f.app, ACME_TOKEN);
    const bob = await signIn(f.app, BOB_TOKEN);
    const seen = (await labelCall(alice, job.submissionId, { label: 'spam', expected: null })).json<{
      labelId: string;
      labelledAt: string;
    }>();
    const carol = await sameInstant(seen.labelledAt).labels.label('acme', job.submissionId, 'legitimate', 'carol');
    expect(carol?.labelledAt).toBe(seen.labelledAt);

    // Bob has alice's label on screen; carol's came in the same millisecond.
    const stale = await labelCall(bob, job.submissionId, { label: 'spam', expected: seen.labelId });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({
      error: 'Not labelled: carol labelled it legitimate meanwhile. Label it again if you mean to replace that label.',
      label: { label: 'legitimate', moderatorId: 'carol', labelledAt: seen.labelledAt, labelId: carol?.labelId },
    });
    expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({ moderatorId: 'carol', labelId: carol?.labelId });

    const informed = await labelCall(bob, job.submissionId, { label: 'spam', expected: carol?.labelId });
    expect(informed.statusCode).toBe(200);
    expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({ label: 'spam', moderatorId: 'bob' });
  });

  it('in Chromium, a label on an item someone labelled meanwhile changes nothing, says who did, and shows their label', async () => {
    const t = Date.now() - 7_200_000;
    const [x, y] = [0, 1].map((m) =>
      fakeJob({ accountId: 'acme', receivedAt: new Date(t + m * 60_000).toISOString(), fields: { message: `conflict item ${m}` } }),
    );
    await f.review.store.items.ingest(x!);
    await f.review.store.items.ingest(y!);
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, BOB_TOKEN);
      expect(await page.locator('#list li[aria-selected="true"]').getAttribute('data-id')).toBe(x!.submissionId);

      // Alice labels the item bob has on screen.
      await f.review.store.labels.label('acme', x!.submissionId, 'spam', 'alice');
      await page.keyboard.press('h');
      await page.locator('#toast', { hasText: 'alice labelled it spam meanwhile' }).waitFor({ timeout: 5000 });
      expect(await f.review.store.labels.getLabel('acme', x!.submissionId)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor({ timeout: 5000 });
      expect(await page.locator(`#list li[data-id="${x!.submissionId}"]`).count()).toBe(0);

      // The next key, made knowing alice's label, replaces it.
      await page.keyboard.press('h');
      await page.locator('#detail', { hasText: 'legitimate by bob' }).waitFor({ timeout: 5000 });
      expect(await f.review.store.labels.getLabel('acme', x!.submissionId)).toMatchObject({ label: 'legitimate', moderatorId: 'bob' });
      expect(await f.review.store.labels.getLabel('acme', y!.submissionId)).toBeUndefined();
    });
  });

  it('in Chromium, a relabel in the same millisecond as the label on screen is noticed too', async () => {
    const x = fakeJob({ accountId: 'acme', fields: { message: 'same millisecond item' } });
    await f.review.store.items.ingest(x);
    const alice = await f.review.store.labels.label('acme', x.submissionId, 'spam', 'alice');
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, BOB_TOKEN, page.locator('#list li').first());
      await page.keyboard.press('/');
      await page.keyboard.type(x.submissionId);
      await page.keyboard.press('Enter');
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor({ timeout: 5000 });

      // Carol relabels it on another instance, in the millisecond of alice's label; bob's screen still says alice.
      await sameInstant(alice!.labelledAt).labels.label('acme', x.submissionId, 'legitimate', 'carol');
      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'carol labelled it legitimate meanwhile' }).waitFor({ timeout: 5000 });
      await page.locator('#detail', { hasText: 'legitimate by carol' }).waitFor({ timeout: 5000 });
      expect(await f.review.store.labels.getLabel('acme', x.submissionId)).toMatchObject({ label: 'legitimate', moderatorId: 'carol' });
    });
  });
});
