import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY as API_KEY, ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium against the real app: a submission whose fields were cut for display (the fixture caps each
// field at 4096 bytes) says so where the moderator reads it, not below the last field.
let f: ConsoleAppFixture;
let viaVerify = '';
const olderItem = fakeJob({
  accountId: 'acme',
  receivedAt: new Date(Date.now() - 7_200_000).toISOString(),
  fields: { message: 'older item, cut before the names of cut fields were kept' },
  truncated: true,
});

beforeAll(async () => {
  f = await consoleApp();
  // Through POST /v1/verify, so the sink's own caps decide what is cut ("casino" makes the stand-in model say spam).
  const res = await f.app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { 'content-type': 'application/json', origin: 'https://example.com' },
    payload: {
      apiKey: API_KEY,
      formId: 'contact',
      payload: { name: 'Casino Carl', message: `casino ${'spin the wheel today '.repeat(400)}`, extra: 'z'.repeat(5000), short: 'ok' },
    },
  });
  expect(res.statusCode).toBe(200);
  viaVerify = (res.json() as { submissionId: string }).submissionId;
  await until(async () => (await f.review.store.items.get('acme', viaVerify)) !== undefined, 'the submission queued for review');
  await f.review.store.items.ingest(olderItem);
});

afterAll(async () => {
  await f?.close();
});

/** Each field of the detail: its name, whether it is marked cut, and what follows its value. */
function fieldsOf(page: Page) {
  return page.locator('#detail dl.fields').evaluate((dl) =>
    Array.from(dl.querySelectorAll(':scope > dt')).map((dt) => {
      const value = dt.nextElementSibling;
      const after = value?.nextElementSibling;
      return {
        name: dt.firstChild?.textContent ?? '',
        badge: dt.querySelector('.cut')?.textContent ?? null,
        markAfterValue: after?.classList.contains('cut-mark') ? after.textContent : null,
      };
    }),
  );
}

describe('a submission whose fields were cut, in the console', () => {
  it('says which fields were cut above the fields, in view, and marks each cut field where its text stops', async () => {
    await withPage(f.browser, { viewport: { width: 1200, height: 760 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.locator(`#list li[data-id="${viaVerify}"]`).click();
      await page.locator('#detail', { hasText: viaVerify }).waitFor();

      const summary = page.locator('#detail .cut-summary');
      expect(await summary.textContent()).toBe('Cut to the size limit, so their end is missing: message, extra.');
      // Before the fields it concerns, and on screen without scrolling (above the fixed action bar).
      expect(
        await summary.evaluate((note) => {
          const fields = document.querySelector('#detail dl.fields');
          return fields !== null && (note.compareDocumentPosition(fields) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
        }),
      ).toBe(true);
      const box = await summary.boundingBox();
      const bar = await page.locator('nav.actions').boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(bar!.y);

      const mark = '✂ Cut here: the rest of this field was over the size limit and was not kept.';
      expect(await fieldsOf(page)).toEqual([
        { name: 'name', badge: null, markAfterValue: null },
        { name: 'message', badge: 'cut', markAfterValue: mark },
        { name: 'extra', badge: 'cut', markAfterValue: mark },
        { name: 'short', badge: null, markAfterValue: null },
      ]);

      // An item queued before cut fields were named still says, above its fields, that something was cut.
      await page.fill('#lookup-id', olderItem.submissionId);
      await page.press('#lookup-id', 'Enter');
      await page.locator('#detail', { hasText: olderItem.submissionId }).waitFor();
      expect(await summary.textContent()).toBe(
        'Some fields were cut to the size limit, so their end is missing (which ones was not recorded for this item).',
      );
      expect(await fieldsOf(page)).toEqual([{ name: 'message', badge: null, markAfterValue: null }]);
    });
  });
});
