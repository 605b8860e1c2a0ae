import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium, driven by the keyboard only: what a moderator who does not use a mouse can reach and see.
let f: ConsoleAppFixture;
let items: ReviewJob[];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 3_600_000;
  items = [0, 1, 2, 3].map((i) =>
    fakeJob({
      accountId: 'acme',
      receivedAt: new Date(t + i * 60_000).toISOString(),
      // Long enough that the page scrolls: the fixed action bar then covers part of the content.
      fields: { name: `Sender ${i}`, message: `Item ${i}. ${'A long message line. '.repeat(200)}` },
    }),
  );
  for (const job of items) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

/** Who has the focus, whether it shows, and whether anything fixed (the action bar, the toast) covers it. */
async function focus(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (el === null || el === document.body) return { id: 'body', visible: false, ring: 'none', covered: false, inView: false };
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    // Sample points inside the element: the topmost element there must be it or inside it, not a fixed bar over it.
    const points = [
      [r.left + r.width / 2, r.top + Math.min(r.height / 2, 10)],
      [r.left + Math.min(r.width / 2, 10), r.top + r.height / 2],
    ];
    const covered = points.some(([x, y]) => {
      const top = document.elementFromPoint(x!, y!);
      return top !== null && top !== el && !el.contains(top);
    });
    const inView = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    // A date box takes the focus into its day, month and year parts and its calendar button: the box shows the ring.
    const isDate = el instanceof HTMLInputElement && el.type === 'date';
    return {
      id: el.id || el.tagName,
      visible: el.matches(':focus-visible') || (isDate && el.matches(':focus-within')),
      ring: `${style.outlineStyle} ${parseFloat(style.outlineWidth)}`,
      covered,
      inView: inView || (r.height > window.innerHeight / 2 && r.top < window.innerHeight && r.bottom > 0),
    };
  });
}

async function signInByKeyboard(page: Page): Promise<void> {
  await page.goto(`${f.base}/review`);
  await page.locator('#token').waitFor();
  // The token field has the focus on arrival: type, Enter.
  expect((await focus(page)).id).toBe('token');
  await page.keyboard.type(ACME_TOKEN);
  await page.keyboard.press('Enter');
  await page.locator('#list li[data-id]').first().waitFor();
}

const selected = (page: Page) => page.locator('#list li[aria-selected="true"]').getAttribute('data-id');

describe('the console by keyboard only', () => {
  it('puts the focus on the list after sign-in, and Tab reaches every control in reading order, always visibly', async () => {
    for (const viewport of [
      { width: 1200, height: 760 },
      { width: 390, height: 640 },
    ]) {
      await withPage(f.browser, { viewport }, async (page) => {
        await signInByKeyboard(page);
        // The list is where the work starts: the keys act, and the focus shows where the moderator is.
        await until(async () => (await focus(page)).id === 'list', 'the list to have the focus');
        // Scrolled to the end of a long submission (as a moderator reading it would be): a control that Tab reaches
        // must not stay hidden under the fixed action bar.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const order: string[] = [];
        // Until the focus comes round to the first control again; Tab goes through a date box's parts one by one.
        for (let i = 0; i < 40 && order.filter((id) => id === 'mark-spam').length < 2; i++) {
          await page.keyboard.press('Tab');
          const now = await focus(page);
          if (order.at(-1) !== now.id) order.push(now.id);
          // After the last control the focus goes to the browser's own controls once, then back to the first.
          if (now.id === 'body') continue;
          expect(now, `${now.id} at ${viewport.width}px`).toMatchObject({ visible: true, covered: false, inView: true });
          // A ring of its own, at least 2px: not the browser's thin default, lost on the red and green buttons.
          expect(now.ring, now.id).toMatch(/^solid ([2-9]|\d{2})/);
        }
        // The bulk buttons are disabled until something is selected, the pager's while there is one page only: Tab skips them.
        expect(order).toEqual([
          'mark-spam',
          'mark-legitimate',
          'undo',
          'body',
          'view-queue',
          'view-dashboard',
          'view-history',
          'view-lists',
          'sign-out',
          'filter-form',
          'filter-status',
          'lookup-id',
          'lookup',
          'sort',
          'from',
          'to',
          'search',
          'search-go',
          'select-page',
          'confirm-min',
          'confirm-preview',
          'list',
          'mark-spam',
        ]);
      });
    }
  });

  it('moves through the list and labels with the keys while the list has the focus, which stays on it', async () => {
    await withPage(f.browser, { viewport: { width: 1200, height: 760 } }, async (page) => {
      await signInByKeyboard(page);
      await until(async () => (await focus(page)).id === 'list', 'the list to have the focus');
      const list = page.locator('#list');
      expect(await list.getAttribute('role')).toBe('listbox');
      await page.keyboard.press('ArrowDown');
      expect(await selected(page)).toBe(items[1]!.submissionId);
      // Assistive technology is told which option is current.
      expect(await list.getAttribute('aria-activedescendant')).toBe(
        await page.locator('#list li[aria-selected="true"]').getAttribute('id'),
      );
      await page.keyboard.press('s');
      await until(
        async () => (await f.review.store.labels.getLabel('acme', items[1]!.submissionId))?.label === 'spam',
        'spam label stored',
      );
      await page.locator(`#list li[data-id="${items[1]!.submissionId}"]`).waitFor({ state: 'detached' });
      expect(await selected(page)).toBe(items[2]!.submissionId);
      expect(await focus(page)).toMatchObject({ id: 'list', visible: true });
      await page.keyboard.press('u');
      await page.locator(`#list li[data-id="${items[1]!.submissionId}"]`).waitFor();
      expect(await f.review.store.labels.getLabel('acme', items[1]!.submissionId)).toBeUndefined();
      expect(await focus(page)).toMatchObject({ id: 'list', visible: true });
    });
  });

  it('looks an item up and labels it by keyboard: after the look-up the keys act on the item, not in the box', async () => {
    await withPage(f.browser, { viewport: { width: 1200, height: 760 } }, async (page) => {
      await signInByKeyboard(page);
      const target = items[3]!.submissionId;
      await page.keyboard.press('/');
      expect((await focus(page)).id).toBe('lookup-id');
      await page.keyboard.type(target);
      await page.keyboard.press('Enter');
      await page.locator('#detail', { hasText: target }).waitFor();
      // The detail of the item looked up has the focus, visibly: the next key labels it.
      expect(await focus(page)).toMatchObject({ id: 'detail', visible: true });
      await page.keyboard.press('h');
      await until(async () => (await f.review.store.labels.getLabel('acme', target))?.label === 'legitimate', 'legitimate label stored');
      expect(await page.locator('#lookup-id').inputValue()).toBe(target);

      // "/" again selects what the box holds, so the next id replaces it.
      await page.keyboard.press('/');
      expect(
        await page.evaluate(() => {
          const box = document.getElementById('lookup-id') as HTMLInputElement;
          return [box.selectionStart, box.selectionEnd];
        }),
      ).toEqual([0, target.length]);
    });
  });
});
