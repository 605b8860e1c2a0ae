import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../core/fs/repo-root.ts';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';

// Real headless Chromium at a laptop's and a phone's size: the header stays, rows can be read, nothing is too wide.
// The screenshots it takes are the ones docs/review.md shows.
let f: ConsoleAppFixture;
let items: ReviewJob[];
const LONG_NAME = `how_did_you_hear_about_us_${'and_what_else_would_you_like_to_tell_us_'.repeat(8)}`;

const messages: [string, 'spam' | 'legitimate', number, Record<string, string>][] = [
  [
    'contact',
    'spam',
    0.97,
    {
      name: 'Mark SEO',
      email: 'mark.seo.expert@mailbox-pro.top',
      message:
        'Hi! I checked your website and it is not ranking on Google page 1.\nWe offer guaranteed backlinks from DA90+ sites: https://seo-boost.top/offer\nReply today for a 50% discount!\nBest, Mark',
    },
  ],
  [
    'contact',
    'legitimate',
    0.62,
    { name: 'Jana Nováková', email: 'jana.novakova@gmail.com', message: 'Hello, do you ship to the Czech Republic?\nThanks, Jana' },
  ],
  [
    'quote',
    'legitimate',
    0.55,
    {
      name: 'Tom Baker',
      email: 'tom@bakerandsons.co.uk',
      message:
        'We need 40 chairs for a conference on 14 March. Could you send a quote with delivery to Leeds? We would also like to know whether you can collect them afterwards, and what the deposit is.',
      [LONG_NAME]: 'A friend told me',
    },
  ],
  [
    'newsletter',
    'spam',
    0.995,
    {
      email: 'crypto.gains.daily@protonmail.example',
      message: 'Earn 5,000 USD a week from home with our crypto signals bot. Join now: https://t.me/cryptosignalz',
    },
  ],
  [
    'contact',
    'spam',
    0.88,
    {
      name: 'Olga',
      email: 'olga1987@mail.example',
      message: 'Hello dear, I saw your profile and I want to know you better.\nWrite me to my email',
    },
  ],
  ['contact', 'legitimate', 0.71, { name: 'Ahmed', email: 'ahmed.k@example.net', message: 'مرحبا، هل يمكنني حجز موعد يوم الخميس؟' }],
];

beforeAll(async () => {
  f = await consoleApp();
  const t = Date.now() - 5 * 3_600_000;
  items = [];
  for (let round = 0; round < 3; round++)
    messages.forEach(([formId, status, confidence, fields], i) =>
      items.push(
        fakeJob({
          formId,
          status,
          confidence,
          // The first message comes three times over, merged into one row; the others differ by their sender's name.
          fields: i === 0 || round === 0 ? fields : { ...fields, name: `${fields.name ?? 'Anon'} (${round + 1})` },
          receivedAt: new Date(t + (round * messages.length + i) * 600_000).toISOString(),
          verdict: { status, confidence, reasoning: 'Flagged for links and sales wording.', modelVersion: '2026-11-20.1' },
        }),
      ),
    );
  for (const job of items) await f.review.store.items.ingest(job);
});

afterAll(async () => {
  await f?.close();
});

async function layout(page: Page) {
  return page.evaluate(() => {
    const rect = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
    const preview = document.querySelector('#list li[data-id] .preview')!;
    const lineHeight = parseFloat(getComputedStyle(preview).lineHeight);
    return {
      pageWidth: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      barTop: rect('.bar').top,
      countsInView: rect('#counts').bottom <= window.innerHeight && rect('#counts').top >= 0,
      signOutInView: rect('#sign-out').top >= 0 && rect('#sign-out').right <= window.innerWidth,
      previewLines: Math.round(preview.getBoundingClientRect().height / lineHeight),
      dateType: (document.getElementById('from') as HTMLInputElement).type,
    };
  });
}

describe('the console layout in Chromium', () => {
  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`at ${viewport.width}×${viewport.height}: the header stays in view, rows show lines of the message, nothing is too wide`, async () => {
      await withPage(f.browser, { viewport }, async (page) => {
        const missing: string[] = [];
        page.on('response', (r) => r.status() === 404 && missing.push(new URL(r.url()).pathname));
        await signInToConsole(page, f.base, ACME_TOKEN);
        // The item with a very long field name is on screen.
        await page.locator(`#list li[data-id="${items[2]!.submissionId}"]`).click();
        await page.locator('#detail dt', { hasText: 'how_did_you_hear' }).waitFor();
        const top = await layout(page);
        expect(top.pageWidth, 'page width').toBeLessThanOrEqual(viewport.width);
        expect(top.dateType).toBe('date');
        // A message of four lines shows more than one of them in its row.
        expect(top.previewLines).toBeGreaterThanOrEqual(2);
        await page.screenshot({ path: path.join(repoRoot, 'docs', `review-console-${name}.png`) });
        // Scrolled to the bottom of the page: the counts and Sign out are still there.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const scrolled = await layout(page);
        expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
        expect(scrolled).toMatchObject({ barTop: 0, countsInView: true, signOutInView: true });
        expect(scrolled.pageWidth).toBeLessThanOrEqual(viewport.width);
        expect(missing).toEqual([]);
      });
    });
  }
});
