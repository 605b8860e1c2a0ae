import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium: a flood of identical submissions is one item, and the console says how many it stands for.
let f: ConsoleAppFixture;

beforeAll(async () => {
  f = await consoleApp();
  for (let i = 0; i < 3; i++)
    await f.review.store.items.ingest(
      fakeJob({ accountId: 'acme', fields: { message: 'Cheap backlinks, rank #1: http://seo.example.top' } }),
    );
});

afterAll(async () => {
  await f?.close();
});

describe('a campaign in the console', () => {
  it('shows one item marked with how many identical submissions it stands for, in the list and in the detail', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      expect(await page.locator('#list li[data-id]').count()).toBe(1);
      expect(await page.locator('#list li[data-id] .badge.campaign').textContent()).toBe('×3 identical');
      const fact = page.locator('#detail .facts dd', { hasText: 'identical submissions' });
      await fact.waitFor();
      expect(await fact.textContent()).toBe('3 identical submissions (this one and 2 more); one label covers them');
    });
  });
});
