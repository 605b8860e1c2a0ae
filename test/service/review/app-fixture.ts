import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { buildApp } from '../../../service/app.ts';
import type { FormFields } from '../../../core/features/form-fields.ts';
import type { Classifier, Verdict } from '../../../core/classifier/types.ts';
import { startReview, type Review, type ReviewEnv } from '../../../service/review/setup.ts';
import { CSRF_HEADER } from '../../../service/review/console/routes.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { launchChromium } from './browser.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../../support/redis.ts';
import { tenantsFile } from '../../support/tenants.ts';
import { silent } from '../../support/logs.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/until.ts';
import { Redis } from 'ioredis';

/** A stand-in model for wiring tests (the queue is under test, not the model): "casino" means spam. */
export const keywordClassifier: Classifier = {
  modelVersion: 'keyword-test',
  featureVersion: 'test',
  classify(fields: FormFields): Verdict {
    const spam = JSON.stringify(fields).toLowerCase().includes('casino');
    return {
      status: spam ? 'spam' : 'legitimate',
      spamProbability: spam ? 0.97 : 0.03,
      confidence: 0.97,
      signals: [],
      reasoning: spam ? 'Mentions a casino.' : 'Nothing unusual.',
      modelVersion: 'keyword-test',
    };
  },
  score(fields: FormFields, accountId?: string) {
    return this.classify(fields, accountId);
  },
};

export interface ReviewAppFixture {
  readonly app: FastifyInstance;
  readonly review: Review;
  readonly tenants: { current: ReturnType<typeof parseTenants> };
  readonly redis: Redis;
  readonly prefix: string;
  /** The review side's metrics (the lists' decisions among them). */
  readonly registry: Registry;
  close(): Promise<void>;
}

/** The review settings of the test apps: a band of 0.75, no sampling, fields cut at 4096 bytes, a 1 MiB spool. */
export function reviewEnv(redisUrl: string, spoolDir: string, prefix: string): ReviewEnv {
  return {
    REDIS_URL: redisUrl,
    REVIEW_BAND: 0.75,
    REVIEW_SAMPLE_RATE: 0,
    REVIEW_RETENTION_DAYS: 30,
    REVIEW_KEEP_FIELDS_DAYS: 3,
    REVIEW_SPOOL_DIR: spoolDir,
    REVIEW_SPOOL_MAX_BYTES: 1 << 20,
    REVIEW_MAX_FIELD_BYTES: 4096,
    BULLMQ_PREFIX: prefix,
  };
}

/** The real service app (buildApp) with the review sink and console, on the shared test Redis under its own prefix. */
export async function reviewApp(
  opts: {
    withModerators?: boolean;
    logger?: Logger;
    classifier?: Classifier;
    env?: Pick<Partial<ReviewEnv>, 'REVIEW_MAX_PENDING' | 'REVIEW_NEAR_MEMBERS_MAX'>;
  } = {},
): Promise<ReviewAppFixture> {
  const prefix = testPrefix('app');
  const spool = await tempDir('app-spool');
  const tenants = { current: parseTenants(JSON.stringify(tenantsFile({ moderators: opts.withModerators ?? true })), 'test') };
  const registry = new Registry();
  const review = startReview({
    env: { ...reviewEnv(REDIS_URL, spool.dir, prefix), ...opts.env },
    log: opts.logger ?? silent,
    moderators: tenants,
    registry,
    accountPolicy: (accountId) => tenants.current.accounts.get(accountId)?.review,
  });
  if (review === undefined) throw new Error('review did not start');
  // The sink spools until its connection is ready; hand the app out once the store answers.
  await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
  const app = await buildApp({
    tenants,
    classifier: opts.classifier ?? keywordClassifier,
    maxEventLoopDelayMs: 0,
    reviewSink: review.sink,
    reviewRoutes: review.routes,
    reviewTraffic: review.traffic,
    accountLists: review.lists,
    ...(opts.logger === undefined ? {} : { logger: opts.logger }),
  });
  await app.ready();
  const redis = new Redis(REDIS_URL);
  return {
    app,
    review,
    tenants,
    redis,
    prefix,
    registry,
    async close() {
      await app.close();
      await review.close();
      await deleteKeys(redis, prefix);
      redis.disconnect();
      await spool.remove();
    },
  };
}

export interface ConsoleAppFixture extends ReviewAppFixture {
  /** Where the app listens, on a loopback port: the console is at `${base}/review`. */
  readonly base: string;
  readonly browser: Browser;
}

/** reviewApp, listening on a loopback port, with headless Chromium to drive its console; close() closes both. */
export async function consoleApp(opts: Parameters<typeof reviewApp>[0] = {}): Promise<ConsoleAppFixture> {
  const f = await reviewApp(opts);
  try {
    const base = await f.app.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    return {
      ...f,
      base,
      browser,
      async close() {
        await browser.close();
        await f.close();
      },
    };
  } catch (err) {
    await f.close();
    throw err;
  }
}

/** Headers of a console API call that sends JSON (the CSRF header included). */
export const JSON_HEADERS = { 'content-type': 'application/json', [CSRF_HEADER]: '1' };

/** Signs a moderator in through the console API and returns the session's Cookie header. */
export async function signIn(app: FastifyInstance, token: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/review/api/session', headers: JSON_HEADERS, payload: { token } });
  if (res.statusCode !== 200) throw new Error(`sign-in answered ${res.statusCode}: ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'fg_review');
  if (cookie === undefined) throw new Error('no session cookie');
  return `fg_review=${cookie.value}`;
}
