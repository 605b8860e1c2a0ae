import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewJob } from '../../../../service/review/intake/job-schema.ts';
import { startReview, type Review } from '../../../../service/review/setup.ts';
import { fakeJob, moderators } from '../helpers.ts';
import { freePort } from '../../../support/free-port.ts';
import { OwnRedis } from '../../../support/own-redis.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';

// A Redis of the test's own is stopped during traffic and started again; the service is restarted while it is
// down. Every flagged submission must reach the review store, none twice, and nothing unflagged.
const prefix = 'fgtest-outage';
let server: OwnRedis;
let spool: Awaited<ReturnType<typeof tempDir>>;
let data: Awaited<ReturnType<typeof tempDir>>;
const registry = new Registry();

function start(url: string): Review {
  const review = startReview({
    env: {
      REDIS_URL: url,
      REVIEW_BAND: 0.75,
      REVIEW_SAMPLE_RATE: 0,
      REVIEW_RETENTION_DAYS: 30,
      REVIEW_KEEP_FIELDS_DAYS: 3,
      REVIEW_SPOOL_DIR: spool.dir,
      REVIEW_SPOOL_MAX_BYTES: 8 * 1024 * 1024,
      REVIEW_MAX_FIELD_BYTES: 2048,
      BULLMQ_PREFIX: prefix,
    },
    log: silent,
    moderators: moderators([]),
    registry,
  });
  if (review === undefined) throw new Error('review did not start');
  return review;
}

async function metric(name: string): Promise<number> {
  return Number(/ (\d+)$/m.exec(await registry.getSingleMetricAsString(name))?.[1] ?? NaN);
}

beforeAll(async () => {
  spool = await tempDir('outage-spool');
  data = await tempDir('outage-redis');
  server = new OwnRedis(await freePort(), data.dir);
  await server.start();
});

afterAll(async () => {
  server.kill();
  await spool.remove();
  await data.remove();
});

describe('a Redis outage during traffic, with a service restart in it', () => {
  it('gets every flagged submission to the review store exactly once', async () => {
    const flagged: ReviewJob[] = [];
    const unflagged: ReviewJob[] = [];
    let n = 0;
    const traffic = async (review: Review, count: number) => {
      for (let i = 0; i < count; i++) {
        n++;
        const job =
          n % 3 === 0
            ? fakeJob({ accountId: 'outage', status: 'legitimate', confidence: 0.95 })
            : fakeJob({ accountId: 'outage', status: n % 3 === 1 ? 'spam' : 'legitimate', confidence: n % 3 === 1 ? 0.9 : 0.6 });
        (n % 3 === 0 ? unflagged : flagged).push(job);
        review.sink.offer(job);
        // Let the event loop run between submissions, as between requests.
        await new Promise((r) => setImmediate(r));
      }
    };

    let review = start(server.url);
    await until(async () => (await review.store.items.counts('outage').catch(() => undefined)) !== undefined, 'service connected');
    await traffic(review, 60);

    // Redis goes away while submissions keep coming.
    const stopping = server.stop();
    await traffic(review, 60);
    await stopping;
    await traffic(review, 60);

    // The service restarts during the outage: close() flushes what was offered (to the spool, Redis being gone).
    await review.close();
    const spooledBeforeRestart = await metric('formguard_review_spooled_total');
    expect(spooledBeforeRestart).toBeGreaterThan(0);
    review = start(server.url);
    await traffic(review, 60);
    await review.sink.flush();

    // Redis comes back while traffic goes on; the new instance drains the spool the old one left.
    const starting = server.start();
    await traffic(review, 30);
    await starting;
    await traffic(review, 60);
    await review.sink.flush();

    const check = new Redis(server.url);
    try {
      await until(
        async () => ((await review.store.items.counts('outage').catch(() => undefined))?.pending ?? 0) >= flagged.length,
        `${flagged.length} items in review`,
        45_000,
      );
      await review.sink.drain();
      const ids: string[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await review.store.items.listPending('outage', {}, offset, 200);
        ids.push(...page.map((j) => j.submissionId));
        if (page.length < 200) break;
      }
      expect(new Set(ids).size).toBe(ids.length); // none twice
      expect(new Set(ids)).toEqual(new Set(flagged.map((j) => j.submissionId))); // all flagged, nothing else
      expect(unflagged.some((j) => ids.includes(j.submissionId))).toBe(false);
      expect(await review.sink.drain().then(() => review.store.items.counts('outage'))).toEqual({
        pending: flagged.length,
        labelled: 0,
        shed: 0,
      });
      expect(await metric('formguard_review_dropped_total')).toBe(0);
    } finally {
      await review.close();
      check.disconnect();
    }
  });
});
