import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_QUEUE } from '../../../../service/review/intake/queue.ts';
import { startReview, type Review } from '../../../../service/review/setup.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../../../support/redis.ts';
import { fakeJob, moderators } from '../helpers.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';

const prefix = testPrefix('queue');
const redis = new Redis(REDIS_URL);
const registry = new Registry();
let spool: Awaited<ReturnType<typeof tempDir>>;
let review: Review;
let inspect: Queue;
/** The sink's random draws, in order: lets a test decide which confident verdicts are sampled. */
const draws: number[] = [];

async function counter(name: string): Promise<number> {
  const metric = await registry.getSingleMetricAsString(name);
  return Number(/ (\d+)$/m.exec(metric)?.[1] ?? NaN);
}

beforeAll(async () => {
  spool = await tempDir('queue-spool');
  const started = startReview({
    env: {
      REDIS_URL,
      REVIEW_BAND: 0.75,
      REVIEW_SAMPLE_RATE: 0.01,
      REVIEW_RETENTION_DAYS: 30,
      REVIEW_KEEP_FIELDS_DAYS: 3,
      REVIEW_SPOOL_DIR: spool.dir,
      REVIEW_SPOOL_MAX_BYTES: 1024 * 1024,
      REVIEW_MAX_FIELD_BYTES: 1024,
      BULLMQ_PREFIX: prefix,
    },
    log: silent,
    moderators: moderators([]),
    registry,
    random: () => draws.shift() ?? 0.5,
  });
  if (started === undefined) throw new Error('review did not start');
  review = started;
  inspect = new Queue(REVIEW_QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix });
  // The sink spools until its own connection is ready; start the tests once it answers.
  await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
});

afterAll(async () => {
  await review.close();
  await inspect.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await spool.remove();
});

describe('what goes to review', () => {
  it('queues spam, unsure legitimate and the sampled share; not confident legitimate', async () => {
    const spam = fakeJob({ status: 'spam', confidence: 0.99 });
    const unsure = fakeJob({ status: 'legitimate', confidence: 0.6 });
    const sampled = fakeJob({ status: 'legitimate', confidence: 0.97 });
    const confident = fakeJob({ status: 'legitimate', confidence: 0.97 });
    draws.push(0.001, 0.5); // sampled is drawn under the 1% rate, confident over it
    const before = await counter('formguard_review_queued_total');
    for (const job of [spam, unsure, sampled, confident]) review.sink.offer(job);
    await review.sink.flush();

    expect(await counter('formguard_review_queued_total')).toBe(before + 3);
    await until(async () => (await review.store.items.get('acme', sampled.submissionId)) !== undefined, 'sampled item stored');
    for (const job of [spam, unsure, sampled])
      expect((await review.store.items.get('acme', job.submissionId))?.item.submissionId).toBe(job.submissionId);
    expect(await inspect.getJob(confident.submissionId)).toBeUndefined();
    // Not queued: only its verdict is kept, without fields, for support look-ups.
    await until(async () => (await review.store.items.get('acme', confident.submissionId)) !== undefined, 'verdict kept');
    expect(await review.store.items.get('acme', confident.submissionId)).toMatchObject({ queued: false, item: { fields: {} } });
    expect((await review.store.items.listPending('acme', {}, 0, 500)).some((i) => i.submissionId === confident.submissionId)).toBe(false);
  });

  it('caps field sizes and says so', async () => {
    const job = fakeJob({ fields: { message: 'é'.repeat(5000), short: 'ok', nested: { deep: 'x'.repeat(3000) } } });
    review.sink.offer(job);
    await review.sink.flush();
    await until(async () => (await review.store.items.get('acme', job.submissionId)) !== undefined, 'item stored');
    const stored = (await review.store.items.get('acme', job.submissionId))?.item;
    expect(stored?.truncated).toBe(true);
    expect(stored?.cutFields).toEqual(['message', 'nested']);
    expect(Buffer.byteLength(String(stored?.fields.message))).toBeLessThanOrEqual(1024);
    expect(String(stored?.fields.message)).toMatch(/^é+$/);
    expect(stored?.fields.short).toBe('ok');
    // A nested value over the cap is kept as its JSON text, cut to the cap.
    const nested = stored?.fields.nested;
    expect(typeof nested).toBe('string');
    expect(Buffer.byteLength(nested as string)).toBeLessThanOrEqual(1024);
    expect(nested as string).toMatch(/^\{"deep":"x+$/);
  });
});

describe('one job per submissionId', () => {
  it('stores a submission once however often it is offered, before and after the job is done', async () => {
    const job = fakeJob({ accountId: 'once', formId: 'once-form' });
    review.sink.offer(job);
    review.sink.offer(job);
    review.sink.offer({ ...job, fields: { changed: 'a second copy must not replace the first' } });
    await review.sink.flush();
    await until(async () => (await review.store.items.counts('once')).pending === 1, 'one pending item');
    // BullMQ forgets a completed (removed) job id, so a later re-add creates a new job: the store's SET NX still holds.
    await until(async () => (await inspect.getJob(job.submissionId)) === undefined, 'job completed and removed');
    review.sink.offer(job);
    await review.sink.flush();
    await until(async () => (await inspect.getJobCounts('wait', 'active', 'delayed')).wait === 0, 'queue empty');
    await until(async () => (await inspect.getJob(job.submissionId)) === undefined, 'second job done');
    const items = await review.store.items.listPending('once');
    expect(items.map((i) => i.submissionId)).toEqual([job.submissionId]);
    expect(items[0]?.fields).toEqual(job.fields);
    expect(await review.store.items.ingest(job)).toBe('duplicate');
  });
});

describe('accounts are kept apart', () => {
  it('lists, shows and labels only the own account’s items', async () => {
    const a = fakeJob({ accountId: 'apart-a', formId: 'form-a' });
    const b = fakeJob({ accountId: 'apart-b', formId: 'form-b' });
    expect(await review.store.items.ingest(a)).toBe('stored');
    expect(await review.store.items.ingest(b)).toBe('stored');
    expect((await review.store.items.listPending('apart-a')).map((i) => i.submissionId)).toEqual([a.submissionId]);
    expect((await review.store.items.listPending('apart-b')).map((i) => i.submissionId)).toEqual([b.submissionId]);
    expect(await review.store.items.get('apart-a', b.submissionId)).toBeUndefined();
    expect(await review.store.labels.label('apart-a', b.submissionId, 'legitimate', 'mod-a')).toBeUndefined();
    expect(await review.store.items.forms('apart-a')).toEqual(['form-a']);
    expect(await review.store.labels.getLabel('apart-b', b.submissionId)).toBeUndefined();
  });
});

describe('the review store', () => {
  it('lists oldest first and filters by form and verdict', async () => {
    const t = Date.now() - 3_600_000;
    const at = (m: number) => new Date(t + m * 60_000).toISOString();
    const jobs = [
      fakeJob({ accountId: 'order', formId: 'f1', receivedAt: at(3), status: 'spam' }),
      fakeJob({ accountId: 'order', formId: 'f2', receivedAt: at(1), status: 'legitimate', confidence: 0.55 }),
      fakeJob({ accountId: 'order', formId: 'f1', receivedAt: at(2), status: 'legitimate', confidence: 0.6 }),
      fakeJob({ accountId: 'order', formId: 'f2', receivedAt: at(0), status: 'spam' }),
    ];
    for (const j of jobs) await review.store.items.ingest(j);
    const ids = (list: { submissionId: string }[]) => list.map((i) => i.submissionId);
    expect(ids(await review.store.items.listPending('order'))).toEqual([jobs[3], jobs[1], jobs[2], jobs[0]].map((j) => j?.submissionId));
    expect(ids(await review.store.items.listPending('order', { formId: 'f1' }))).toEqual([jobs[2], jobs[0]].map((j) => j?.submissionId));
    expect(ids(await review.store.items.listPending('order', { status: 'spam' }))).toEqual([jobs[3], jobs[0]].map((j) => j?.submissionId));
    expect(ids(await review.store.items.listPending('order', { formId: 'f2', status: 'legitimate' }))).toEqual([jobs[1]?.submissionId]);
    expect(ids(await review.store.items.listPending('order', {}, 1, 2))).toEqual([jobs[1], jobs[2]].map((j) => j?.submissionId));
  });

  it('stores a label with moderator, time and the model verdict, and undoes it', async () => {
    const job = fakeJob({ accountId: 'labels', status: 'spam', confidence: 0.91 });
    await review.store.items.ingest(job);
    const record = await review.store.labels.label('labels', job.submissionId, 'legitimate', 'alice');
    expect(record).toMatchObject({
      label: 'legitimate',
      moderatorId: 'alice',
      modelStatus: 'spam',
      modelConfidence: 0.91,
      formId: 'contact',
    });
    expect(await review.store.labels.getLabel('labels', job.submissionId)).toEqual(record);
    expect(await review.store.items.counts('labels')).toEqual({ pending: 0, labelled: 1, shed: 0 });
    expect(await review.store.labels.undo('labels', 'bob')).toEqual({ kind: 'nothing' });
    expect(await review.store.labels.undo('labels', 'alice')).toEqual({ kind: 'undone', submissionId: job.submissionId });
    expect(await review.store.items.counts('labels')).toEqual({ pending: 1, labelled: 0, shed: 0 });
    expect(await review.store.labels.getLabel('labels', job.submissionId)).toBeUndefined();
    expect(await review.store.labels.undo('labels', 'alice')).toEqual({ kind: 'nothing' });
  });

  it('applies retention: items expire with receivedAt + retention, old ones are not stored, the sweep prunes indexes', async () => {
    const job = fakeJob({ accountId: 'retention' });
    await review.store.items.ingest(job);
    // Both the item and its label (personal data) end at receivedAt + 30 days, to within a minute of test run time.
    const remaining = () => Date.parse(job.receivedAt) + 30 * 86_400_000 - Date.now();
    const ttl = await redis.pttl(review.store.keys.forAccount('retention').item(job.submissionId));
    expect(Math.abs(ttl - remaining())).toBeLessThan(60_000);
    await review.store.labels.label('retention', job.submissionId, 'spam', 'alice');
    const labelTtl = await redis.pttl(review.store.keys.forAccount('retention').label(job.submissionId));
    expect(Math.abs(labelTtl - remaining())).toBeLessThan(60_000);

    const old = fakeJob({ accountId: 'retention', receivedAt: new Date(Date.now() - 31 * 86_400_000).toISOString() });
    expect(await review.store.items.ingest(old)).toBe('expired');

    const k = review.store.keys.forAccount('retention');
    await redis.zadd(k.pending(), Date.now() - 40 * 86_400_000, 'stale-entry');
    expect(await review.store.retention.sweep()).toBeGreaterThanOrEqual(1);
    expect(await redis.zscore(k.pending(), 'stale-entry')).toBeNull();
  });
});
