import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClassifier } from '../../../../core/classifier/load.ts';
import { buildApp } from '../../../../service/app.ts';
import { repoRoot } from '../../../../core/fs/repo-root.ts';
import { startReview, type Review } from '../../../../service/review/setup.ts';
import { consoleApp, reviewEnv, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { silent } from '../../../support/logs.ts';
import { REDIS_URL } from '../../../support/redis.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { ACME_TOKEN, KEY as API_KEY } from '../../../support/tenants.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium on instance A blocks a sender from an item; instance B (its own app, its own Redis connections,
// its own copy of the lists) answers that sender's next submission spam within 5 s.
let a: ConsoleAppFixture;
let b: FastifyInstance;
let bReview: Review;
let removeSpool: () => Promise<void>;

const SENDER = 'Quinn.Harper@bulk-offers.example';
const ENQUIRY = {
  name: 'Quinn Harper',
  email: SENDER,
  message: 'Hello, could you send me a quote for 20 oak chairs delivered to our office? Thanks, Quinn',
};

beforeAll(async () => {
  const classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  a = await consoleApp({ classifier });
  const spool = await tempDir('lists-b-spool');
  removeSpool = spool.remove;
  // Instance B: the same Redis and prefix, nothing else shared; no worker (A's ingests).
  bReview = startReview({
    env: reviewEnv(REDIS_URL, spool.dir, a.prefix),
    log: silent,
    moderators: a.tenants,
    registry: new Registry(),
    worker: false,
  });
  b = await buildApp({ tenants: a.tenants, classifier, maxEventLoopDelayMs: 0, accountLists: bReview.lists });
  await b.ready();
  await a.review.store.items.ingest(fakeJob({ fields: ENQUIRY, status: 'spam', confidence: 0.8 }));
});

afterAll(async () => {
  await b?.close();
  await bReview?.close();
  await a?.close();
  await removeSpool?.();
});

async function verifyOnB(): Promise<{ status: string; reasoning: string; confidence: number }> {
  const res = await b.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { origin: 'https://example.com' },
    payload: { apiKey: API_KEY, formId: 'contact', payload: ENQUIRY },
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('allow and block lists in Chromium', () => {
  it("blocks a sender from an item; the other instance answers the sender's next submission spam within 5 s", async () => {
    expect((await verifyOnB()).status).toBe('legitimate');
    await withPage(a.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, a.base, ACME_TOKEN);
      const block = page.locator('#detail [data-list-action="block sender"]');
      await block.waitFor();
      expect(await page.locator('#detail .list-candidates li[data-kind="sender"] .value').textContent()).toBe(SENDER.toLowerCase());
      await block.click();
      await page.locator('#toast', { hasText: `Added to the block list: ${SENDER.toLowerCase()}` }).waitFor();
      // The item now says the sender is listed, with a way back.
      await page.locator('#detail li[data-kind="sender"] [data-list-action="remove sender"]').waitFor();
    });
    let answer = await verifyOnB();
    await until(
      async () => {
        answer = await verifyOnB();
        return answer.status === 'spam';
      },
      "instance B to answer the blocked sender's submission spam",
      5_000,
    );
    expect(answer.confidence).toBe(1);
    expect(answer.reasoning).toMatch(/^Spam: the sender is on your block list \(the model alone said legitimate/);
  });

  it('lists the entry in the Lists view and removes it there; the other instance follows', async () => {
    await withPage(a.browser, { viewport: { width: 1280, height: 900 } }, async (page) => {
      await signInToConsole(page, a.base, ACME_TOKEN);
      await page.click('#view-lists');
      const row = page.locator(`#lists-table tr[data-value="${SENDER.toLowerCase()}"]`);
      await row.waitFor();
      expect((await row.locator('td').allTextContents()).slice(0, 4)).toEqual(['block', 'sender', SENDER.toLowerCase(), 'alice']);
      // A malformed value is refused with the server's message; nothing is added.
      await page.fill('#lists-value', 'not a domain');
      await page.selectOption('#lists-add-kind', 'link-domain');
      await page.click('#lists-add-go');
      await page.locator('#toast', { hasText: 'a domain a host name' }).waitFor();
      await page.fill('#lists-value', 'https://www.bulk-offers.example/landing');
      await page.click('#lists-add-go');
      await page.locator('#lists-table tr[data-value="bulk-offers.example"]').waitFor();
      await row.locator('[data-list-action="remove sender"]').click();
      await row.waitFor({ state: 'detached' });
    });
    // The link domain is not in the enquiry, and the sender is off the list: the model decides again.
    await until(async () => (await verifyOnB()).status === 'legitimate', 'instance B to drop the removed entry', 5_000);
  });
});
