// Takes docs/review-console.png: the console with real-looking items. Run: npx tsx test/service/review/screenshot.ts
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '../../../service/config/env.ts';
import type { ReviewJob } from '../../../service/review/intake/job-schema.ts';
import { ACME_TOKEN, reviewApp } from './app-fixture.ts';
import { launchChromium, signInToConsole } from './browser.ts';

const now = Date.now();
const job = (minutesAgo: number, formId: string, status: 'spam' | 'legitimate', confidence: number, reasoning: string, fields: Record<string, unknown>): ReviewJob => ({
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
    message: 'Hi! I checked your website and it is not ranking on Google page 1. We offer guaranteed backlinks from DA90+ sites: https://seo-boost.top/offer https://seo-boost.top/prices https://bit.ly/3xRank\nReply today for a 50% discount!',
  }),
  job(151, 'contact', 'legitimate', 0.62, 'Leans legitimate: a named sender and a question, but a short message from a free mail domain.', {
    name: 'Jana Nováková',
    email: 'jana.novakova@gmail.com',
    message: 'Hello, do you ship to the Czech Republic? Thanks',
  }),
  job(97, 'newsletter', 'spam', 0.88, 'Flagged for a random-looking name and an email that does not match it.', { email: 'xkqjz.wopp@outlook.com', name: 'RobertVog' }),
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
  const base = await f.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, deviceScaleFactor: 1 });
    await signInToConsole(page, base, ACME_TOKEN);
    const out = path.join(repoRoot, 'docs', 'review-console.png');
    await page.screenshot({ path: out });
    const phone = await browser.newPage({ viewport: { width: 390, height: 800 }, deviceScaleFactor: 1 });
    await signInToConsole(phone, base, ACME_TOKEN);
    await phone.screenshot({ path: path.join(repoRoot, '.tmp', 'review-console-phone.png') });
    console.log(`wrote ${out}`);
  } finally {
    await browser.close();
  }
} finally {
  await f.close();
}
