import type { Browser } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../service/app.ts';
import { startReview, type Review } from '../../../../service/review/setup.ts';
import { parseTenants } from '../../../../service/tenants/load.ts';
import { ACME_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { keywordClassifier, reviewEnv } from '../app-fixture.ts';
import { launchChromium, signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { freePort } from '../../../support/free-port.ts';
import { OwnRedis } from '../../../support/own-redis.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium against the real app on a Redis of the test's own, which the test stops.
let server: OwnRedis;
let data: Awaited<ReturnType<typeof tempDir>>;
let spool: Awaited<ReturnType<typeof tempDir>>;
let review: Review;
let app: FastifyInstance;
let browser: Browser;
let base: string;

beforeAll(async () => {
  data = await tempDir('store-down-redis');
  spool = await tempDir('store-down-spool');
  server = new OwnRedis(await freePort(), data.dir);
  await server.start();
  const tenants = { current: parseTenants(JSON.stringify(tenantsFile()), 'test') };
  review = startReview({
    env: reviewEnv(server.url, spool.dir, 'fgtest-store-down'),
    log: silent,
    moderators: tenants,
    registry: new Registry(),
  });
  await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
  await review.store.items.ingest(fakeJob({ accountId: 'acme', fields: { message: 'store down item' } }));
  app = await buildApp({
    tenants,
    classifier: keywordClassifier,
    maxEventLoopDelayMs: 0,
    reviewSink: review.sink,
    reviewRoutes: review.routes,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await review?.close();
  server?.kill();
  await spool?.remove();
  await data?.remove();
});

describe('the console while the review store is down', () => {
  it('says the store is unavailable instead of asking a signed-in moderator for the token again', async () => {
    await withPage(browser, async (page) => {
      await signInToConsole(page, base, ACME_TOKEN, page.locator('#list li[data-id]', { hasText: 'store down item' }));

      await server.stop();
      await page.reload();
      await page
        .locator('#sign-in-error', { hasText: 'The review store is not available; try again shortly.' })
        .waitFor({ timeout: 10_000 });
      expect(await page.locator('#sign-in-error').textContent()).toContain('Your session is kept');

      // It was: with Redis back (SHUTDOWN SAVE kept the session), a reload opens the console without a token.
      await server.start();
      await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review reconnected');
      await page.reload();
      await page.locator('#list li[data-id]', { hasText: 'store down item' }).waitFor({ timeout: 10_000 });
    });
  });
});
