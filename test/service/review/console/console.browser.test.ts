import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN, GLOBEX_TOKEN } from '../../../support/tenants.ts';
import { reviewApp, type ReviewAppFixture } from '../app-fixture.ts';
import { launchChromium } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium against the real app, listening on a loopback port.
let f: ReviewAppFixture;
let browser: Browser;
let base: string;
const XSS_SCRIPT = '<script>window.__xss = "script"</script>';
const XSS_IMG = '<img src=x onerror="window.__xss=\'img\';alert(1)">';
const GLOBEX_SECRET = 'globex-only-text-7d1c';
let items: ReviewJob[];

beforeAll(async () => {
  f = await reviewApp();
  base = await f.app.listen({ host: '127.0.0.1', port: 0 });
  const t = Date.now() - 3_600_000;
  const at = (m: number) => new Date(t + m * 60_000).toISOString();
  items = [
    fakeJob({
      accountId: 'acme',
      formId: 'contact',
      receivedAt: at(0),
      fields: { name: XSS_IMG, message: `Hello ${XSS_SCRIPT} world`, [XSS_IMG]: 'field name attack' },
      verdict: { status: 'spam', confidence: 0.93, reasoning: `Suspicious markup ${XSS_SCRIPT}`, modelVersion: 'm-1' },
    }),
    fakeJob({ accountId: 'acme', formId: 'contact', receivedAt: at(1), fields: { message: 'second item' } }),
    fakeJob({
      accountId: 'acme',
      formId: 'newsletter',
      receivedAt: at(2),
      status: 'legitimate',
      confidence: 0.6,
      fields: { message: 'third item' },
    }),
  ];
  for (const job of items) await f.review.store.items.ingest(job);
  await f.review.store.items.ingest(
    fakeJob({ accountId: 'globex', formId: 'globex-form', receivedAt: at(0), fields: { message: GLOBEX_SECRET } }),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

async function openConsole(): Promise<{ context: BrowserContext; page: Page; dialogs: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${base}/review`);
  await page.locator('#sign-in').waitFor({ state: 'visible' });
  return { context, page, dialogs };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
}

describe('the moderator console in Chromium', () => {
  it('lets a wrong token in nowhere', async () => {
    const { context, page } = await openConsole();
    try {
      await signIn(page, 'not-a-token');
      await page.locator('#sign-in-error', { hasText: 'not valid' }).waitFor();
      expect(await page.locator('#console').isVisible()).toBe(false);
      expect(await context.cookies()).toEqual([]);
      const api = await page.evaluate(async () => (await fetch('/review/api/list')).status);
      expect(api).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('signs in, shows only the account’s items, labels with the keyboard, undoes, signs out; payloads run nothing', async () => {
    const { context, page, dialogs } = await openConsole();
    try {
      await signIn(page, ACME_TOKEN);
      await page.locator('#list li[data-id]').first().waitFor();
      expect(await page.locator('#who').textContent()).toBe('alice · acme');
      expect(await page.locator('#counts').textContent()).toBe('3 pending · 0 labelled');

      // Oldest first, only acme's items.
      const ids = await page.locator('#list li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
      expect(ids).toEqual(items.map((i) => i.submissionId));
      expect(await page.content()).not.toContain(GLOBEX_SECRET);

      // The attacker's markup is shown as text and nothing ran.
      const detail = page.locator('#detail');
      expect(await detail.textContent()).toContain(XSS_SCRIPT);
      expect(await detail.textContent()).toContain(XSS_IMG);
      expect(await page.locator('#detail img, #list img, #detail script, #list script').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
      expect(dialogs).toEqual([]);

      // j moves down, s labels spam, h labels legitimate (ham), u undoes the last label.
      await page.keyboard.press('j');
      expect(await page.locator('#list li[aria-selected="true"]').getAttribute('data-id')).toBe(items[1]?.submissionId);
      await page.keyboard.press('s');
      await page.locator('#counts', { hasText: '2 pending · 1 labelled' }).waitFor();
      expect(await f.review.store.labels.getLabel('acme', items[1]!.submissionId)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
      expect(await page.locator('#list li[aria-selected="true"]').getAttribute('data-id')).toBe(items[2]?.submissionId);
      await page.keyboard.press('k');
      expect(await page.locator('#list li[aria-selected="true"]').getAttribute('data-id')).toBe(items[0]?.submissionId);
      await page.keyboard.press('h');
      await page.locator('#counts', { hasText: '1 pending · 2 labelled' }).waitFor();
      expect(await f.review.store.labels.getLabel('acme', items[0]!.submissionId)).toMatchObject({
        label: 'legitimate',
        modelStatus: 'spam',
      });

      await page.keyboard.press('u');
      await page.locator('#counts', { hasText: '2 pending · 1 labelled' }).waitFor();
      expect(await f.review.store.labels.getLabel('acme', items[0]!.submissionId)).toBeUndefined();
      expect(await f.review.store.labels.getLabel('acme', items[1]!.submissionId)).toBeDefined();
      await page.locator(`#list li[data-id="${items[0]!.submissionId}"]`).waitFor();

      // Looking up a labelled submission by id shows it with its label.
      await page.fill('#lookup-id', items[1]!.submissionId);
      await page.press('#lookup-id', 'Enter');
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor();

      expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
      expect(dialogs).toEqual([]);

      await page.click('#sign-out');
      await page.locator('#sign-in').waitFor({ state: 'visible' });
      expect(await page.locator('#console').isVisible()).toBe(false);
      const after = await page.evaluate(async () => (await fetch('/review/api/list')).status);
      expect(after).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('sign-out leaves none of the last session in the page: the next moderator gets a fresh screen', async () => {
    const { context, page } = await openConsole();
    try {
      await signIn(page, ACME_TOKEN);
      await page.locator('#list li[data-id]').first().waitFor();
      await page.selectOption('#filter-form', 'newsletter');
      await page.locator('#list li[data-id]', { hasText: 'third item' }).waitFor();
      await page.click('#sign-out');
      await page.locator('#sign-in').waitFor({ state: 'visible' });
      // The hidden console keeps no submission of acme's for the next person at this screen.
      expect(await page.locator('#list').textContent()).toBe('');
      expect(await page.locator('#detail').textContent()).toBe('');

      // A moderator of another account signs in here and sees their pending item, not acme's form filter.
      await signIn(page, GLOBEX_TOKEN);
      await page.locator('#who', { hasText: 'gina · globex' }).waitFor();
      await page.locator('#list li[data-id]', { hasText: GLOBEX_SECRET }).waitFor({ timeout: 5000 });
      expect(await page.locator('#filter-form').inputValue()).toBe('');
      expect(await page.content()).not.toContain('third item');
    } finally {
      await context.close();
    }
  });
});
