// Takes docs/review-console.png: the console with real-looking items. Run: npx tsx test/service/review/screenshot.ts
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import type { ReviewJob } from '../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN } from '../../support/tenants.ts';
import { reviewApp } from './app-fixture.ts';
import { launchChromium, signInToConsole } from './browser.ts';
import { TrafficCounter } from '../../../service/review/dashboard/traffic.ts';
import { silent } from '../../support/logs.ts';

const now = Date.now();
const job = (
  minutesAgo: number,
  formId: string,
  status: 'spam' | 'legitimate',
  confidence: number,
  reasoning: string,
  fields: Record<string, unknown>,
): ReviewJob => ({
  submissionId: randomUUID(),
  accountId: 'acme',
  formId,
  receivedAt: new Date(now - minutesAgo * 60_000).toISOString(),
  origin: 'www.example.com',
  fields,
  truncated: false,
  verdict: { status, confidence, reasoning, modelVersion: '2025-11-22.1' },
});

const items = [
  job(182, 'contact', 'spam', 0.97, 'Flagged for 3 links in the message and wording such as "backlinks", "rank", "guaranteed".', {
    name: 'Mark SEO',
    email: 'mark.seo.expert@mailbox-pro.top',
    message:
      'Hi! I checked your website and it is not ranking on Google page 1. We offer guaranteed backlinks from DA90+ sites: https://seo-boost.top/offer https://seo-boost.top/prices https://bit.ly/3xRank\nReply today for a 50% discount!',
  }),
  job(151, 'contact', 'legitimate', 0.62, 'Leans legitimate: a named sender and a question, but a short message from a free mail domain.', {
    name: 'Jana Nováková',
    email: 'jana.novakova@gmail.com',
    message: 'Hello, do you ship to the Czech Republic? Thanks',
  }),
  job(97, 'newsletter', 'spam', 0.88, 'Flagged for a random-looking name and an email that does not match it.', {
    email: 'xkqjz.wopp@outlook.com',
    name: 'RobertVog',
  }),
  job(64, 'quote', 'spam', 0.91, 'Flagged for wording such as "crypto", "investment", "profit" and a link.', {
    company: 'Global Invest LTD',
    message: 'Make $5000 per day with our crypto investment robot. Register: https://quick-profit.click',
  }),
  job(12, 'contact', 'legitimate', 0.71, 'Leans legitimate: specific product question with an order number.', {
    name: 'Tom Becker',
    email: 'tom.becker@beckerbau.de',
    message: 'Order #20417 arrived with a cracked lid. Could you send a replacement part?',
  }),
];

const f = await reviewApp();
try {
  for (const item of items) await f.review.store.items.ingest(item);
  // Two weeks of traffic for the dashboard, counted as the verify route counts it, and a few labels.
  const day = 86_400_000;
  for (let d = 13; d >= 0; d--) {
    const at = now - d * day;
    const seed = (n: number) => Math.round(n * (1 + 0.35 * Math.sin(d * 1.7)));
    const counts: [string, 'spam' | 'legitimate' | 'blocked' | 'rate-limited', number][] = [
      ['contact', 'legitimate', seed(42)],
      ['contact', 'spam', seed(17)],
      ['contact', 'blocked', seed(3)],
      ['newsletter', 'legitimate', seed(25)],
      ['newsletter', 'spam', seed(31)],
      ['quote', 'legitimate', seed(9)],
      ['quote', 'spam', seed(6)],
      ['newsletter', 'rate-limited', d % 5 === 0 ? 12 : 0],
    ];
    const counter = new TrafficCounter(f.redis, f.review.store.keys, f.review.store.retentionMs, silent, () => at, 3_600_000);
    for (const [form, event, n] of counts) for (let i = 0; i < n; i++) counter.record('acme', form, event);
    await counter.close();
  }
  for (let i = 0; i < 40; i++) {
    const spam = i % 4 !== 0;
    const confidence = spam ? 0.6 + (i % 8) * 0.05 : 0.55 + (i % 9) * 0.05;
    const item = job(
      300 + i,
      ['contact', 'newsletter', 'quote'][i % 3]!,
      spam ? 'spam' : 'legitimate',
      Math.min(0.99, confidence),
      'Sample.',
      { message: `Sample ${i}` },
    );
    await f.review.store.items.ingest(item);
    const truth = spam ? (i % 9 === 0 ? 'legitimate' : 'spam') : i % 8 === 0 ? 'spam' : 'legitimate';
    await f.review.store.labels.label('acme', item.submissionId, truth, 'alice');
  }
  const base = await f.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, deviceScaleFactor: 1 });
    await signInToConsole(page, base, ACME_TOKEN);
    const out = path.join(repoRoot, 'docs', 'review-console.png');
    // Focusing the list scrolls it into view; the picture starts at the top, with the header and its counts.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: out });
    const phone = await browser.newPage({ viewport: { width: 390, height: 800 }, deviceScaleFactor: 1 });
    await signInToConsole(phone, base, ACME_TOKEN);
    await phone.screenshot({ path: path.join(repoRoot, '.tmp', 'review-console-phone.png') });
    console.log(`wrote ${out}`);
    await page.click('#view-dashboard');
    await page.locator('#dash-table tr.total').waitFor();
    const dash = path.join(repoRoot, 'docs', 'review-dashboard.png');
    await page.screenshot({ path: dash, fullPage: true });
    await phone.click('#view-dashboard');
    await phone.locator('#dash-table tr.total').waitFor();
    await phone.screenshot({ path: path.join(repoRoot, '.tmp', 'review-dashboard-phone.png'), fullPage: true });
    console.log(`wrote ${dash}`);
  } finally {
    await browser.close();
  }
} finally {
  await f.close();
}
