import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium: an item the shadow model disagreed on shows both verdicts, and which one answered.
let f: ConsoleAppFixture;

beforeAll(async () => {
  f = await consoleApp();
  await f.review.store.items.ingest(
    fakeJob({
      accountId: 'acme',
      status: 'legitimate',
      confidence: 0.97,
      fields: { message: 'a disagreement' },
      verdict: { status: 'legitimate', confidence: 0.97, reasoning: 'Nothing unusual.', modelVersion: '20260101-000000' },
      shadow: { status: 'spam', confidence: 0.81, modelVersion: '20260102-000000' },
    }),
  );
});

afterAll(async () => {
  await f?.close();
});

describe('a shadow disagreement in the console', () => {
  it('marks the item in the list and shows both verdicts in the detail', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      expect(await page.locator('#list li[data-id] .badge.disagreement').textContent()).toBe('shadow: spam');
      const shadow = page.locator('#detail .shadow-verdict.disagreement');
      await shadow.waitFor();
      expect(await shadow.textContent()).toBe(
        'Models disagree. Shadow model saysspamspam 0.81 (20260102-000000; the answer came from 20260101-000000)',
      );
      expect(await page.locator('#detail h2').textContent()).toBe('Model sayslegitimatespam 0.03');
    });
  });
});
