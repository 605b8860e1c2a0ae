import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, JSON_HEADERS, signIn, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: the history of labels (who, when, which, one by one or bulk), filtered, and undo from it.
let f: ConsoleAppFixture;
let jobs: ReviewJob[];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  jobs = [0, 1, 2, 3].map((i) =>
    fakeJob({
      receivedAt: new Date(t + i * 60_000).toISOString(),
      status: 'spam',
      confidence: 0.9,
      fields: { message: `History item ${i}` },
    }),
  );
  for (const job of jobs) await f.review.store.items.ingest(job);
  await f.review.store.labels.label('acme', jobs[0]!.submissionId, 'legitimate', 'alice');
  await f.review.store.bulk.label('acme', [jobs[1]!.submissionId, jobs[2]!.submissionId], 'spam', 'bob');
});

afterAll(async () => {
  await f?.close();
});

describe('the history in Chromium', () => {
  it('lists labels with who, which and how, filters them, and undoes one of them (not the newest) from there', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.click('#view-history');
      expect(new URL(page.url()).searchParams.get('view')).toBe('history');
      const rows = page.locator('#history-table tbody tr');
      await until(async () => (await rows.count()) === 3, 'three labels listed');
      const row = (id: string) => page.locator(`#history-table tr[data-id="${id}"] td`);
      expect((await row(jobs[0]!.submissionId).allTextContents()).slice(1, 5)).toEqual([
        'alice',
        'legitimate',
        'one by one',
        'spam (spam 0.90)',
      ]);
      expect((await row(jobs[1]!.submissionId).allTextContents()).slice(1, 4)).toEqual(['bob', 'spam', 'bulk']);

      await page.selectOption('#history-how', 'bulk');
      await until(async () => (await rows.count()) === 2, 'the two bulk labels');
      await page.selectOption('#history-moderator', 'bob');
      await page.selectOption('#history-how', '');
      await until(async () => (await rows.count()) === 2, "bob's two labels");
      await page.selectOption('#history-moderator', '');
      await until(async () => (await rows.count()) === 3, 'all three again');

      // Undo alice's label, which is not the newest: it goes back to pending, bob's stay.
      await page.locator(`#history-table tr[data-id="${jobs[0]!.submissionId}"] button.undo-label`).click();
      await page.locator('#toast', { hasText: 'Label undone: the item is pending again' }).waitFor();
      expect(await f.review.store.labels.getLabel('acme', jobs[0]!.submissionId)).toBeUndefined();
      // The next export is told to take back its line, as for an undo with u.
      expect((await f.review.store.exports.withdrawals('acme')).map((w) => w.entry?.submissionId)).toEqual([jobs[0]!.submissionId]);
      expect(await f.review.store.labels.getLabel('acme', jobs[1]!.submissionId)).toMatchObject({ label: 'spam', moderatorId: 'bob' });
      await until(async () => (await rows.count()) === 2, 'the undone label gone from the history');
      expect(await page.locator('#counts').textContent()).toBe('2 pending · 2 labelled');
      // Back on the queue, it is pending again.
      await page.click('#view-queue');
      await page.locator(`#list li[data-id="${jobs[0]!.submissionId}"]`).waitFor();
    });
  });

  it('refuses to undo a label that changed since it was shown, and changes nothing', async () => {
    const cookie = await signIn(f.app, ACME_TOKEN);
    const shown = (await f.review.store.labels.getLabel('acme', jobs[2]!.submissionId))!;
    await f.review.store.labels.label('acme', jobs[2]!.submissionId, 'legitimate', 'carol');
    const res = await f.app.inject({
      method: 'POST',
      url: `/review/api/items/${jobs[2]!.submissionId}/unlabel`,
      headers: { ...JSON_HEADERS, cookie },
      payload: { seen: shown.labelId },
    });
    expect(res.json()).toMatchObject({ kind: 'changed', by: 'carol' });
    expect(await f.review.store.labels.getLabel('acme', jobs[2]!.submissionId)).toMatchObject({
      label: 'legitimate',
      moderatorId: 'carol',
    });
  });
});
