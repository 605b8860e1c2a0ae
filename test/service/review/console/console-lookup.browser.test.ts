import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: the keys act on the item on screen, also after a look-up of an item not in the list.
let f: ConsoleAppFixture;
let items: ReviewJob[];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  items = [0, 1, 2].map((m) =>
    fakeJob({
      accountId: 'acme',
      formId: 'contact',
      receivedAt: new Date(t + m * 60_000).toISOString(),
      fields: { message: `lookup item ${m}` },
    }),
  );
  for (const job of items) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

describe('labelling a looked-up item in Chromium', () => {
  it('stays on the looked-up item after s, so h relabels it and not the first pending item; list labels still advance', async () => {
    const [a, b, c] = items.map((i) => i.submissionId);
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const selected = () => page.locator('#list li[aria-selected="true"]').getAttribute('data-id');
      expect(await selected()).toBe(a);

      // From the list, a label moves on to the next pending item.
      await page.keyboard.press('h');
      await page.locator('#counts', { hasText: '2 pending · 1 labelled' }).waitFor();
      expect(await selected()).toBe(b);

      // Look up the labelled item, label it spam: the pane stays on it and shows the new label.
      await page.fill('#lookup-id', a!);
      await page.press('#lookup-id', 'Enter');
      const detail = page.locator('#detail');
      await page.locator('#detail', { hasText: 'legitimate by alice' }).waitFor();
      await page.press('#lookup-id', 'Escape'); // leaves the look-up box, so the keys reach the console
      await page.keyboard.press('s');
      await until(async () => (await f.review.store.labels.getLabel('acme', a!))?.label === 'spam', 'spam label stored');
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor({ timeout: 5000 });
      expect(await detail.textContent()).toContain(a);

      // The next key acts on what is on screen: the looked-up item, not the first pending one.
      await page.keyboard.press('h');
      await until(
        async () =>
          (await f.review.store.labels.getLabel('acme', a!))?.label === 'legitimate' ||
          (await f.review.store.labels.getLabel('acme', b!)) !== undefined,
        'second label stored',
      );
      expect(await f.review.store.labels.getLabel('acme', b!)).toBeUndefined();
      expect(await f.review.store.labels.getLabel('acme', a!)).toMatchObject({ label: 'legitimate', moderatorId: 'alice' });
      await page.locator('#detail', { hasText: 'legitimate by alice' }).waitFor({ timeout: 5000 });
      expect(await page.locator('#counts').textContent()).toBe('2 pending · 1 labelled');
      expect(await page.locator('#list li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')))).toEqual([b, c]);

      // Undo takes back that relabel only: the earlier spam label comes back and the item stays labelled.
      await page.keyboard.press('u');
      await page.locator('#toast', { hasText: 'back to spam by alice' }).waitFor({ timeout: 5000 });
      expect(await f.review.store.labels.getLabel('acme', a!)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
      expect(await detail.textContent()).toContain('spam by alice');
      expect(await page.locator('#counts').textContent()).toBe('2 pending · 1 labelled');
    });
  });
});
