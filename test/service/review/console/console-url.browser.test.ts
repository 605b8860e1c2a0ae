import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, signIn, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: the address holds the view, the filters, the search and the open item.
let f: ConsoleAppFixture;
let spamCasino: ReviewJob[];
let legitCasino: ReviewJob[];
let other: ReviewJob;

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3 * 3_600_000;
  const at = (i: number) => new Date(t + i * 60_000).toISOString();
  spamCasino = [0, 1, 2].map((i) =>
    fakeJob({ receivedAt: at(i), status: 'spam', confidence: 0.9, fields: { message: `Casino bonus ${i}` } }),
  );
  legitCasino = [3, 4].map((i) =>
    fakeJob({ receivedAt: at(i), status: 'legitimate', confidence: 0.6, fields: { message: `Our casino night fundraiser, table ${i}` } }),
  );
  other = fakeJob({ receivedAt: at(5), formId: 'newsletter', status: 'spam', confidence: 0.8, fields: { message: 'Cheap watches' } });
  for (const job of [...spamCasino, ...legitCasino, other]) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

const rowIds = (page: Page) => page.locator('#list li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));

describe('the console address in Chromium', () => {
  it('search combines with the verdict filter, the address keeps it all with the open item, and a reload brings it back', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.selectOption('#filter-status', 'legitimate');
      await page.locator('#page-info', { hasText: 'of 2 pending' }).waitFor();
      await page.fill('#search', 'casino');
      await page.press('#search', 'Enter');
      // Only the legitimate ones: the filter still shown is the filter applied.
      await page.locator('#page-info', { hasText: '1–2 of 2 found' }).waitFor();
      expect((await rowIds(page)).sort()).toEqual(legitCasino.map((j) => j.submissionId).sort());
      const target = legitCasino[0]!.submissionId;
      await page.locator(`#list li[data-id="${target}"]`).click();
      const url = new URL(page.url());
      expect(Object.fromEntries(url.searchParams)).toEqual({ status: 'legitimate', q: 'casino', item: target });

      await page.reload();
      await page.locator(`#list li[data-id="${target}"][aria-selected="true"]`).waitFor();
      expect(await page.locator('#filter-status').inputValue()).toBe('legitimate');
      expect(await page.locator('#search').inputValue()).toBe('casino');
      expect(await page.locator('#page-info').textContent()).toBe('1–2 of 2 found');
      await page.locator('#detail', { hasText: target }).waitFor();

      // The view is kept too.
      await page.click('#view-dashboard');
      expect(new URL(page.url()).searchParams.get('view')).toBe('dashboard');
      await page.reload();
      await page.locator('#dashboard:not([hidden])').waitFor();
    });
  });

  it('an item link opens that item, on the list or not', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      // On the list (the form filter in the link puts it there): selected in the list.
      await page.goto(`${f.base}/review?form=newsletter&item=${other.submissionId}`);
      await page.locator(`#list li[data-id="${other.submissionId}"][aria-selected="true"]`).waitFor();
      expect(await page.locator('#filter-form').inputValue()).toBe('newsletter');
      // Further down the list (the second row, oldest first): that row is the one selected and shown, not the first.
      await page.goto(`${f.base}/review?item=${spamCasino[1]!.submissionId}`);
      await page.locator(`#list li[data-id="${spamCasino[1]!.submissionId}"][aria-selected="true"]`).waitFor({ timeout: 10_000 });
      await page.locator('#detail', { hasText: spamCasino[1]!.submissionId }).waitFor({ timeout: 10_000 });
      // Not on the list shown (another form): opened by itself, and the keys act on it.
      await page.goto(`${f.base}/review?form=newsletter&item=${spamCasino[2]!.submissionId}`);
      await page.locator('#detail', { hasText: spamCasino[2]!.submissionId }).waitFor();
      await page.keyboard.press('s');
      await until(async () => (await f.review.store.labels.getLabel('acme', spamCasino[2]!.submissionId))?.label === 'spam', 'labelled');
      await f.review.store.labels.undo('acme', 'alice');
    });
  });

  it('the counts above the list change after a single label and follow the date range', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const summary = page.locator('#summary');
      expect(await summary.textContent()).toBe('Pending by verdict: spam 4 · legitimate 2 — by form: contact 5 · newsletter 1');
      await page.locator('#list').focus();
      await page.keyboard.press('s');
      await summary.filter({ hasText: 'spam 3 · legitimate 2' }).waitFor();
      expect(await page.locator('#counts').textContent()).toBe('5 pending · 1 labelled');
      await page.keyboard.press('u');
      await summary.filter({ hasText: 'spam 4 · legitimate 2' }).waitFor();
      // A range that ends before any of them: nothing pending in it, and the line says so.
      await page.fill('#to', '2020-01-01');
      await page.locator('#to').dispatchEvent('change');
      await summary.filter({ hasText: 'Pending (… to 2020-01-01) by verdict: spam 0 · legitimate 0' }).waitFor();
    });
  });
});

describe('the list API with search and filters', () => {
  it('applies the Form and Verdict filters to a search', async () => {
    const cookie = await signIn(f.app, ACME_TOKEN);
    const res = await f.app.inject({ method: 'GET', url: '/review/api/list?q=casino&status=spam', headers: { cookie } });
    const body = res.json<{ rows: { submissionId: string }[]; total: number }>();
    expect(body.total).toBe(3);
    expect(body.rows.map((r) => r.submissionId).sort()).toEqual(spamCasino.map((j) => j.submissionId).sort());
    const none = await f.app.inject({ method: 'GET', url: '/review/api/list?q=casino&form=newsletter', headers: { cookie } });
    expect(none.json()).toMatchObject({ total: 0, rows: [] });
  });
});
