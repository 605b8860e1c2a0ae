import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { floodFields, VARIED_MESSAGES } from '../near-flood.ts';

// Real headless Chromium: a flood of 200 near-identical spam (one template, names, numbers and links varied) among
// everyone else's posts is one row with its count, labelled as one and undone as one.
let f: ConsoleAppFixture;
let flood: ReviewJob[];
let others: ReviewJob[];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  flood = Array.from({ length: 200 }, (_, i) =>
    fakeJob({
      receivedAt: new Date(t + i * 1_000).toISOString(),
      fields: floodFields(i),
      // The highest id: first among labels of the same time in the history, so its row is on the history's first page.
      ...(i === 0 ? { submissionId: 'ffffffff-ffff-4fff-bfff-ffffffffffff' } : {}),
    }),
  );
  others = VARIED_MESSAGES.map((message, i) =>
    fakeJob({
      receivedAt: new Date(t + i * 10_000 + 500).toISOString(),
      status: i % 3 === 0 ? 'spam' : 'legitimate',
      confidence: 0.6,
      fields: { name: `Person ${i}`, email: `person${i}@example.org`, message },
    }),
  );
  // As they arrive: the flood interleaved with the others, in time order.
  const arriving = [...flood, ...others].sort((a, b) => Date.parse(a.receivedAt) - Date.parse(b.receivedAt));
  for (const job of arriving) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

const leader = () => flood[0]!.submissionId;

describe('similar submissions in the console', () => {
  it('shows the flood as one row with its count and examples; one key labels all 200 and one undo takes them back', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const rows = page.locator('#list li[data-id]');
      expect(await rows.count()).toBe(21);
      expect(await page.locator('#page-info').textContent()).toContain('of 21 pending');
      const groupRows = page.locator('#list li[data-id]:has(.badge.group)');
      expect(await groupRows.count()).toBe(1);
      const row = page.locator(`#list li[data-id="${leader()}"]`);
      expect(await row.locator('.badge.group').textContent()).toBe('×200 similar');
      // Three of the others under it, each with its sender: the moderator sees it is one template.
      const examples = await row.locator('.group-example').allTextContents();
      expect(examples).toHaveLength(3);
      for (const [i, text] of examples.entries()) expect(text).toContain(floodFields(i + 1).email);

      await row.click();
      await page.locator('#detail .facts dd', { hasText: '200 similar submissions' }).waitFor();
      expect(await page.locator('#target').textContent()).toBe('Labels the item on screen');

      const requests: string[] = [];
      page.on('request', (r) => r.method() === 'POST' && requests.push(new URL(r.url()).pathname));
      await page.locator('#list').focus();
      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'Labelled 200 similar spam' }).waitFor();
      expect(requests).toEqual([`/review/api/items/${leader()}/label`]);
      for (const job of flood)
        expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toMatchObject({
          label: 'spam',
          moderatorId: 'alice',
          how: 'bulk',
        });
      for (const job of others) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
      await page.locator('#counts', { hasText: '20 pending · 200 labelled' }).waitFor();
      expect(await rows.count()).toBe(20);
      expect(await groupRows.count()).toBe(0);

      await page.keyboard.press('u');
      await page.locator('#toast', { hasText: 'Bulk label undone: 200 item(s) back' }).waitFor();
      for (const job of flood) expect(await f.review.store.labels.getLabel('acme', job.submissionId)).toBeUndefined();
      await page.locator('#counts', { hasText: '21 pending · 0 labelled' }).waitFor();
      expect(await rows.count()).toBe(21);
      expect(await page.locator(`#list li[data-id="${leader()}"] .badge.group`).textContent()).toBe('×200 similar');
      expect(requests).toEqual([`/review/api/items/${leader()}/label`, '/review/api/undo']);
    });
  });

  it('a ticked group row brings its members into a bulk label, and the undo is one action', async () => {
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      const other = others[1]!.submissionId;
      await page.locator(`#list li[data-id="${leader()}"] input.pick`).click();
      await page.locator(`#list li[data-id="${other}"] input.pick`).click();
      expect(await page.locator('#selected-count').textContent()).toBe('2 selected');
      await page.locator('#list').focus();
      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'Labelled 201 spam' }).waitFor();
      expect(await f.review.store.items.counts('acme')).toEqual({ pending: 19, labelled: 201, shed: 0 });
      await page.keyboard.press('u');
      await page.locator('#toast', { hasText: 'Bulk label undone: 201 item(s) back' }).waitFor();
      expect(await f.review.store.items.counts('acme')).toEqual({ pending: 21, labelled: 0, shed: 0 });
      expect(await page.locator(`#list li[data-id="${leader()}"] .badge.group`).textContent()).toBe('×200 similar');
    });
  });

  it('undoes the group as one from the history: the leader row takes back its members labels of that action', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN);
      await page.locator(`#list li[data-id="${leader()}"]`).click();
      await page.locator('#list').focus();
      await page.keyboard.press('s');
      await page.locator('#toast', { hasText: 'Labelled 200 similar spam' }).waitFor();
      // Another moderator's label of one member since: it stays.
      await f.review.store.labels.label('acme', flood[7]!.submissionId, 'legitimate', 'bob');

      await page.click('#view-history');
      await page.locator(`#history-table tr[data-id="${leader()}"] button.undo-label`).click();
      await page.locator('#toast', { hasText: 'Label undone with 198 similar submission(s) labelled in the same action' }).waitFor();
      expect(await f.review.store.items.counts('acme')).toEqual({ pending: 21, labelled: 1, shed: 0 });
      expect(await f.review.store.labels.getLabel('acme', flood[7]!.submissionId)).toMatchObject({
        label: 'legitimate',
        moderatorId: 'bob',
      });
      await page.click('#view-queue');
      await page.locator(`#list li[data-id="${leader()}"] .badge.group`, { hasText: '×200 similar' }).waitFor();
      expect(await page.locator('#list li[data-id]').count()).toBe(21);
    });
  });
});
