import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTenants } from '../../../../service/tenants/load.ts';
import { ACME_TOKEN, KEY as API_KEY, GLOBEX_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { consoleApp, signIn, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: the dashboard counts the traffic this test sends through POST /v1/verify, and draws its charts.
let f: ConsoleAppFixture;

async function verify(message: string, origin = 'https://example.com', formId = 'contact') {
  return f.app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { 'content-type': 'application/json', origin },
    payload: { apiKey: API_KEY, formId, payload: { message } },
  });
}

beforeAll(async () => {
  f = await consoleApp();
  // Five verify requests a minute for acme, so the sixth is rate-limited.
  const file = tenantsFile();
  file.accounts[0] = { ...file.accounts[0]!, rateLimit: { max: 5, windowSeconds: 60, algorithm: 'fixed' } };
  f.tenants.current = parseTenants(JSON.stringify(file), 'test');
  const answers = [
    await verify('Best casino bonus'),
    await verify('Casino spins free'),
    await verify('Online casino deal', 'https://example.com', 'newsletter'),
    await verify('Can I book a table?'),
    await verify('Please call me back'),
    await verify('Blocked: wrong origin', 'https://evil.example'),
    await verify('One too many'),
  ];
  expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 403, 429]);
  await f.review.sink.flush();
  await until(async () => (await f.review.store.items.counts('acme')).pending === 3, 'spam verdicts queued');
  await f.review.traffic.flush();
  // One spam verdict confirmed, one contradicted: precision on spam 50% from 2 labels.
  // The third, confirmed in bulk, restates the model: it is counted as a label, and left out of the precision.
  const [first, second, third] = await f.review.store.items.listPending('acme', {}, 0, 3);
  await f.review.store.labels.label('acme', first!.submissionId, 'spam', 'alice');
  await f.review.store.labels.label('acme', second!.submissionId, 'legitimate', 'alice');
  await f.review.store.bulk.label('acme', [third!.submissionId], 'spam', 'alice');
});

afterAll(async () => {
  await f?.close();
});

async function openDashboard(page: Page, token: string): Promise<void> {
  await signInToConsole(page, f.base, token, page.locator('#list li').first());
  await page.click('#view-dashboard');
  await page.locator('#dash-table tr.total').waitFor();
}

const rowText = (page: Page, form: string) => page.locator(`#dash-table tr[data-form="${form}"] td`).allTextContents();

/** Pixels of a canvas drawn in a colour close to the given one: what shows that the chart was drawn. */
function colouredPixels(page: Page, id: string, rgb: [number, number, number]): Promise<number> {
  return page.evaluate(
    ([canvasId, [r, g, b]]) => {
      const c = document.getElementById(canvasId) as HTMLCanvasElement;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (Math.abs(d[i]! - r) < 12 && Math.abs(d[i + 1]! - g) < 12 && Math.abs(d[i + 2]! - b) < 12 && d[i + 3]! > 200) n++;
      return n;
    },
    [id, rgb] as const,
  );
}

describe('the dashboard in Chromium', () => {
  it('shows the counts of the traffic sent, per form and in total, and the estimates from labels', async () => {
    await withPage(f.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      const refused: string[] = [];
      page.on('console', (m) => m.type() === 'error' && m.text().includes('Content Security Policy') && refused.push(m.text()));
      await openDashboard(page, ACME_TOKEN);
      // Form, verified, spam, spam share, blocked origins, rate-limited, by block list, by allow list, precision, missed
      // spam, labels.
      expect(await rowText(page, 'contact')).toEqual([
        'contact',
        '4',
        '2',
        '50.0%',
        '1',
        '1',
        '0',
        '0',
        '50.0% (2 labels)',
        'no labels yet',
        '2',
      ]);
      expect(await rowText(page, 'newsletter')).toEqual([
        'newsletter',
        '1',
        '1',
        '100.0%',
        '0',
        '0',
        '0',
        '0',
        'no labels yet; 1 bulk left out',
        'no labels yet',
        '1',
      ]);
      expect(await page.locator('#dash-table tr.total td').allTextContents()).toEqual([
        '(all forms)',
        '5',
        '3',
        '60.0%',
        '1',
        '1',
        '0',
        '0',
        '50.0% (2 labels); 1 bulk left out',
        'no labels yet',
        '3',
      ]);
      // Both charts drawn: the spam colour is on the per-day chart, and both label colours on the histogram.
      expect(await colouredPixels(page, 'chart-days', [0xb3, 0x26, 0x1e])).toBeGreaterThan(100);
      expect(await colouredPixels(page, 'chart-hist', [0xb3, 0x26, 0x1e])).toBeGreaterThan(100);
      expect(await colouredPixels(page, 'chart-hist', [0x1f, 0x6f, 0x43])).toBeGreaterThan(100);
      // And the screenshot of the chart is not a blank box.
      const shot = await page.locator('#chart-days').screenshot();
      expect(shot.length).toBeGreaterThan(3000);
      expect(refused).toEqual([]);
    });
  });

  it('is readable on a phone: nothing wider than the screen but the table, which scrolls in its box', async () => {
    await withPage(f.browser, { viewport: { width: 390, height: 800 } }, async (page) => {
      await openDashboard(page, ACME_TOKEN);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const box = await page.locator('#chart-days').boundingBox();
      expect(box!.width).toBeLessThanOrEqual(390);
      expect(box!.height).toBeGreaterThan(150);
      expect(await colouredPixels(page, 'chart-days', [0xb3, 0x26, 0x1e])).toBeGreaterThan(50);
    });
  });

  it('shows another account none of it, in the page and by the API', async () => {
    await withPage(f.browser, async (page) => {
      await openDashboard(page, GLOBEX_TOKEN);
      expect(await page.locator('#dash-table tr.total td').allTextContents()).toEqual([
        '(all forms)',
        '0',
        '0',
        '–',
        '0',
        '0',
        '0',
        '0',
        'no labels yet',
        'no labels yet',
        '0',
      ]);
      expect(await page.locator('#dash-table tr[data-form="contact"]').count()).toBe(0);
      expect(await page.locator('#dash-form option').allTextContents()).toEqual(['All forms']);
    });
    const cookie = await signIn(f.app, GLOBEX_TOKEN);
    const res = await f.app.inject({ method: 'GET', url: '/review/api/dashboard?days=7', headers: { cookie } });
    expect(res.json()).toMatchObject({ forms: [], total: { verified: 0, blocked: 0, rateLimited: 0, labels: 0 }, allForms: [] });
    // A form id of another account names nothing of it either.
    const other = await f.app.inject({ method: 'GET', url: '/review/api/dashboard?days=7&form=contact', headers: { cookie } });
    expect(other.json()).toMatchObject({ forms: [], total: { verified: 0 } });
    const unauth = await f.app.inject({ method: 'GET', url: '/review/api/dashboard' });
    expect(unauth.statusCode).toBe(401);
  });
});
