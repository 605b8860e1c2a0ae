import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: what s / h label is said on screen before the key is pressed, and the key does just that.
let f: ConsoleAppFixture;
let items: ReviewJob[];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  items = Array.from({ length: 5 }, (_, i) =>
    fakeJob({ receivedAt: new Date(t + i * 60_000).toISOString(), status: 'legitimate', confidence: 0.6, fields: { message: `Row ${i}` } }),
  );
  for (const job of items) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

const label = (i: number) => f.review.store.labels.getLabel('acme', items[i]!.submissionId);

describe('the selection rule in Chromium', () => {
  it('two rows ticked, j to a fourth, s: the bar said "2 selected, not the one on screen", and labels exactly those two', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const rows = page.locator('#list li[data-id]');
      // Nothing ticked: the bar says the item on screen.
      expect(await page.locator('#target').textContent()).toBe('Labels the item on screen');
      expect(await page.locator('#mark-spam').textContent()).toBe('s Spam');

      await rows.nth(0).locator('input.pick').click();
      await rows.nth(1).locator('input.pick').click();
      await page.locator('#list').focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('j');
      expect(await page.locator('#list li[aria-selected="true"]').getAttribute('data-id')).toBe(items[3]!.submissionId);
      await page.locator('#detail', { hasText: 'Row 3' }).waitFor();

      // Before the key: what it will label, and that the item on screen is not part of it, in plain words.
      expect(await page.locator('#mark-spam').textContent()).toBe('s Spam: label 2 selected');
      expect(await page.locator('#mark-legitimate').textContent()).toBe('h Legitimate: label 2 selected');
      expect(await page.locator('#target').textContent()).toBe('Labels the 2 selected. The item on screen is NOT one of them.');

      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'Labelled 2 spam' }).waitFor();
      expect(await label(0)).toMatchObject({ label: 'spam' });
      expect(await label(1)).toMatchObject({ label: 'spam' });
      expect(await label(3)).toBeUndefined();
      // The selection is spent: the bar is back to the item on screen.
      await until(async () => (await page.locator('#target').textContent()) === 'Labels the item on screen', 'the bar back to one item');
      await page.keyboard.press('u');
      await page.locator('#toast', { hasText: 'Bulk label undone: 2 item(s) back' }).waitFor();
    });
  });

  it('says when the item on screen is one of the selected, and Esc clears the selection back to the item on screen', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.locator('#list').focus();
      await page.keyboard.press('x');
      await page.keyboard.press('Shift+J');
      expect(await page.locator('#target').textContent()).toBe('Labels the 2 selected. The item on screen is one of them.');
      await page.keyboard.press('Escape');
      expect(await page.locator('#target').textContent()).toBe('Labels the item on screen');
      expect(await page.locator('#list li[aria-checked="true"]').count()).toBe(0);
      // Now h labels the one on screen only.
      const current = await page.locator('#list li[aria-selected="true"]').getAttribute('data-id');
      await page.keyboard.press('h');
      await until(
        async () => (await f.review.store.labels.getLabel('acme', current!))?.label === 'legitimate',
        'the item on screen labelled',
      );
      expect(await f.review.store.items.counts('acme')).toMatchObject({ labelled: 1 });
    });
  });
});
