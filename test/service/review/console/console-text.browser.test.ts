import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium: what a moderator reads is what was sent, whatever the script or direction.
let f: ConsoleAppFixture;
let spoof: ReviewJob;
let rtl: ReviewJob;
const ARABIC = 'اربح المال الآن مجاني';

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  // "\u202E" (RIGHT-TO-LEFT OVERRIDE) makes "gnp.exe" show as "exe.png"; "\u2066…\u2069" isolates a run.
  spoof = fakeJob({
    accountId: 'acme',
    receivedAt: new Date(t).toISOString(),
    fields: { attachment: 'invoice\u202Egnp.exe', ['name\u202E']: 'x', nested: { file: 'a\u2066b\u2069c' } },
  });
  rtl = fakeJob({ accountId: 'acme', receivedAt: new Date(t + 60_000).toISOString(), fields: { message: ARABIC } });
  for (const job of [spoof, rtl]) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

describe('submitted text in the console', () => {
  it('shows bidirectional control characters instead of letting them reorder the text; right-to-left text reads from the right', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const detail = page.locator('#detail .fields');
      const text = await detail.textContent();
      expect(text).toContain('invoice⟦U+202E⟧gnp.exe');
      expect(text).toContain('name⟦U+202E⟧');
      expect(text).toContain('a⟦U+2066⟧b⟦U+2069⟧c');
      // No control character that could reorder the display is left anywhere in the page's text.
      expect(await page.evaluate(() => /[\u202a-\u202e\u2066-\u2069]/.test(document.body.innerText))).toBe(false);
      expect(await page.locator('#list li[data-id]').first().locator('.preview').textContent()).toBe('invoice⟦U+202E⟧gnp.exe');

      await page.keyboard.press('j');
      await page.locator('#detail .fields dd', { hasText: ARABIC }).waitFor();
      expect(await page.locator('#detail .fields dd', { hasText: ARABIC }).evaluate((dd) => dd.matches(':dir(rtl)'))).toBe(true);
      expect(await page.locator('#detail .fields dt', { hasText: 'message' }).evaluate((dt) => dt.matches(':dir(ltr)'))).toBe(true);
    });
  });
});
