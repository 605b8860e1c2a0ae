import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN, GLOBEX_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium: a moderator's day with a full queue — bulk labels and their undo, confirm-all, search.
let f: ConsoleAppFixture;
let bulk: ReviewJob[];
let sure: ReviewJob[];
let unsure: ReviewJob[];
let needle: ReviewJob;

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 6 * 3_600_000;
  const at = (i: number) => new Date(t + i * 1_000).toISOString();
  // 25 oldest on the contact form (the bulk test takes 20 of them), then confident spam and less confident spam.
  bulk = Array.from({ length: 25 }, (_, i) =>
    fakeJob({ receivedAt: at(i), status: 'spam', confidence: 0.9, fields: { name: `Bulk ${i}`, message: `Bulk message ${i}` } }),
  );
  sure = Array.from({ length: 7 }, (_, i) =>
    fakeJob({ receivedAt: at(100 + i), formId: 'newsletter', status: 'spam', confidence: 0.995, fields: { message: `Cheap pills ${i}` } }),
  );
  unsure = Array.from({ length: 4 }, (_, i) =>
    fakeJob({ receivedAt: at(200 + i), formId: 'newsletter', status: 'spam', confidence: 0.98, fields: { message: `Maybe pills ${i}` } }),
  );
  // Found by a word of its message and by its address; the message is not its first field, and is what the row shows.
  needle = fakeJob({
    receivedAt: at(300),
    status: 'legitimate',
    confidence: 0.6,
    fields: { name: 'Zed', email: 'Quill.Writer@Example.org', message: 'Please send the brochure about heliotrope gardens' },
  });
  for (const job of [...bulk, ...sure, ...unsure, needle]) await f.review.store.items.ingest(job);
  // Another account's item with the same word: never shown to acme.
  await f.review.store.items.ingest(
    fakeJob({ accountId: 'globex', formId: 'globex-form', fields: { message: 'heliotrope for globex only' } }),
  );
});

afterAll(async () => {
  await f?.close();
});

const ids = (jobs: ReviewJob[]) => jobs.map((j) => j.submissionId);

describe('bulk labels in Chromium', () => {
  it('selects 20 items (click, shift-click, keyboard), labels them in one action, and undoes them as one', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const rows = page.locator('#list li[data-id]');
      expect(await rows.count()).toBe(37);
      // Each row shows the message (not the first field), the verdict with its confidence, the form and a time with its zone.
      const needleRow = page.locator(`#list li[data-id="${needle.submissionId}"]`);
      expect(await needleRow.locator('.preview').textContent()).toBe('Please send the brochure about heliotrope gardens');
      expect(await needleRow.locator('.email').textContent()).toBe('Quill.Writer@Example.org');
      // The number is the spam probability whatever the verdict (a legitimate verdict at 0.6 is spam 0.40), and a
      // 0.995 is not rounded up to a certainty.
      expect(await needleRow.locator('.meta').textContent()).toMatch(/legitimatespam 0\.40contact.*(UTC|GMT)/);
      expect(await page.locator(`#list li[data-id="${sure[0]!.submissionId}"] .score`).textContent()).toBe('spam > 0.99');
      expect(await page.locator(`#list li[data-id="${bulk[0]!.submissionId}"] .score`).textContent()).toBe('spam 0.90');
      expect(await page.locator('#summary').textContent()).toBe(
        'Pending by verdict: spam 36 · legitimate 1 — by form: contact 26 · newsletter 11',
      );

      // Click the first box, shift-click the tenth: ten; then x and Shift+j from the eleventh by keyboard: ten more.
      await rows.nth(0).locator('input.pick').click();
      await rows
        .nth(9)
        .locator('input.pick')
        .click({ modifiers: ['Shift'] });
      expect(await page.locator('#selected-count').textContent()).toBe('10 selected');
      await rows.nth(10).click();
      await page.locator('#list').focus();
      await page.keyboard.press('x');
      for (let i = 0; i < 9; i++) await page.keyboard.press('Shift+J');
      expect(await page.locator('#selected-count').textContent()).toBe('20 selected');
      expect(await page.locator('#list li[aria-checked="true"]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')))).toEqual(
        ids(bulk.slice(0, 20)),
      );

      // One action labels all twenty (s with a selection), in one request.
      const requests: string[] = [];
      page.on('request', (r) => r.method() === 'POST' && requests.push(new URL(r.url()).pathname));
      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'Labelled 20 spam' }).waitFor();
      expect(requests).toEqual(['/review/api/bulk/label']);
      for (const job of bulk.slice(0, 20))
        expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
      expect(await f.review.store.labels.getLabel('acme', bulk[20]!.submissionId)).toBeUndefined();
      expect(await page.locator('#counts').textContent()).toBe('17 pending · 20 labelled');
      expect(await rows.count()).toBe(17);

      // One undo takes the whole action back.
      await page.keyboard.press('u');
      await page.locator('#toast', { hasText: 'Bulk label undone: 20 item(s) back' }).waitFor();
      for (const job of bulk.slice(0, 20)) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
      expect(await page.locator('#counts').textContent()).toBe('37 pending · 0 labelled');
      expect(await rows.count()).toBe(37);
      expect(requests).toEqual(['/review/api/bulk/label', '/review/api/undo']);
    });
  });

  it('"confirm all ≥ 0.99" previews how many it takes for the form, then labels exactly those', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.selectOption('#filter-form', 'newsletter');
      await page.locator('#page-info', { hasText: 'of 11 pending' }).waitFor();
      await page.fill('#confirm-min', '0.99');
      await page.click('#confirm-preview');
      await page.locator('#confirm-count', { hasText: '7 pending spam verdict(s) at or above 0.99 (form newsletter)' }).waitFor();
      expect(await page.locator('#confirm-go').textContent()).toBe('Confirm 7 as spam');
      // Nothing labelled by the preview.
      expect(await f.review.store.items.counts('acme')).toMatchObject({ labelled: 0 });
      await page.click('#confirm-go');
      await page.locator('#toast', { hasText: 'Confirmed 7 as spam' }).waitFor();
      for (const job of sure) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({ label: 'spam' });
      for (const job of [...unsure, ...bulk]) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
      await page.locator('#page-info', { hasText: 'of 4 pending' }).waitFor();
      // Undone as one too.
      await page.click('#undo');
      await page.locator('#toast', { hasText: 'Bulk label undone: 7 item(s) back' }).waitFor();
      expect(await f.review.store.items.counts('acme')).toMatchObject({ labelled: 0, pending: 37 });
    });
  });

  it('search finds an item by a word of its message and by its e-mail, in this account only', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      for (const query of ['heliotrope', 'quill.writer@example.org', 'Brochure GARDENS']) {
        await page.fill('#search', query);
        await page.press('#search', 'Enter');
        await page.locator('#page-info', { hasText: '1–1 of 1 found' }).waitFor();
        expect(await page.locator('#list li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')))).toEqual([
          needle.submissionId,
        ]);
      }
      await page.fill('#search', 'nonexistentword');
      await page.press('#search', 'Enter');
      await page.locator('#list li.empty', { hasText: 'Nothing found.' }).waitFor();
    });
    // Another account's moderator: the same word finds only their own item.
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, GLOBEX_TOKEN);
      await page.fill('#search', 'heliotrope');
      await page.press('#search', 'Enter');
      await page.locator('#page-info', { hasText: '1–1 of 1 found' }).waitFor();
      expect(await page.locator('#list .preview').allTextContents()).toEqual(['heliotrope for globex only']);
      await page.fill('#search', 'quill.writer@example.org');
      await page.press('#search', 'Enter');
      await page.locator('#list li.empty', { hasText: 'Nothing found.' }).waitFor();
    });
  });

  it('pages past 100 with the total, and sorts by confidence', async () => {
    const more = Array.from({ length: 120 }, (_, i) =>
      fakeJob({ accountId: 'acme', formId: 'contact', confidence: 0.5 + i / 400, fields: { message: `Page filler ${i}` } }),
    );
    for (const job of more) await f.review.store.items.ingest(job);
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.locator('#page-info', { hasText: '1–100 of 157 pending' }).waitFor();
      await page.click('#page-next');
      await page.locator('#page-info', { hasText: '101–157 of 157 pending' }).waitFor();
      expect(await page.locator('#list li[data-id]').count()).toBe(57);
      await page.selectOption('#sort', 'confidence-high');
      await page.locator('#page-info', { hasText: '1–100 of 157 pending' }).waitFor();
      const first = await page.locator('#list li[data-id]').first().getAttribute('data-id');
      expect(ids(sure)).toContain(first);
    });
    for (const job of more) await f.review.store.erasure.eraseSubmission(job.submissionId);
  });
});
