import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServingRecord } from '../../../core/classifier/serving-record.ts';
import { readFormCounts, ShadowKeys } from '../../../core/classifier/shadow-store.ts';
import { buildApp } from '../../../service/app.ts';
import { ServingFollower } from '../../../service/models/serving-follower.ts';
import { RedisShadowSink } from '../../../service/models/shadow.ts';
import { startReview, type Review } from '../../../service/review/setup.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { copyModel, tempModelsDir } from '../../support/models-dir.ts';
import { cli } from '../../cli/run-cli.ts';
import { KEY as API_KEY, tenantsFile } from '../../support/tenants.ts';
import { reviewEnv } from '../review/app-fixture.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../../support/redis.ts';
import { silent } from '../../support/logs.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/until.ts';

const A = '20260101-000000';
/** Calls everything spam (threshold 0): it disagrees with A on every legitimate submission. */
const B = '20260102-000000';

const LEGITIMATE = [
  'Hello, I would like to book a table for four people on Friday evening. Thanks, Ada',
  'Hi there, could you send me a quote for repainting a two-bedroom flat? Best regards, Tom',
  'Good morning, is the blue sofa from your catalogue still in stock? I could pick it up on Saturday.',
];
const SPAM = [
  'CHEAP SEO BACKLINKS!!! Rank #1 on Google in 24 hours, visit http://seo-rank-fast.example/buy now, guaranteed $$$',
  'Earn $5000 a week from home!!! Crypto trading bot, click http://crypto-profit.example/join now, limited offer',
];

/** Spam that neither model has seen in another test: queued for review as spam whether or not a shadow scores it. */
const FRESH_SPAM = [
  'BUY FOLLOWERS NOW!!! 10000 Instagram followers for $9, visit http://followers-cheap.example/order today, guaranteed $$$',
  'Make $3000 a day with our casino bonus!!! click http://casino-bonus.example/win now, limited offer, act fast $$$',
];

let modelsDir: string;
let labelsDir: string;
let spool: Awaited<ReturnType<typeof tempDir>>;
let review: Review;
let follower: ServingFollower;
let redis: Redis;
const reviewPrefix = testPrefix('shadow-review');
const shadowPrefixes: string[] = [];
const apps: FastifyInstance[] = [];
const tenants = { current: parseTenants(JSON.stringify(tenantsFile()), 'test') };

beforeAll(async () => {
  modelsDir = tempModelsDir();
  labelsDir = mkdtempSync(path.join(tmpdir(), 'formguard-shadow-labels-'));
  await copyModel(modelsDir, A);
  await copyModel(modelsDir, B, (m) => (m.threshold = 0));
  await writeServingRecord(modelsDir, { active: A, previous: null, shadow: B, changedAt: new Date().toISOString(), changedBy: 'test' });
  follower = new ServingFollower({ modelsDir, log: silent });
  await follower.slot.loaded;
  await follower.check();
  spool = await tempDir('shadow-spool');
  review = startReview({ env: reviewEnv(REDIS_URL, spool.dir, reviewPrefix), log: silent, moderators: tenants, registry: new Registry() });
  await until(async () => (await review.store.items.counts('acme').catch(() => undefined)) !== undefined, 'review connected');
  redis = new Redis(REDIS_URL);
  // The sink skips pairs while its connection is not up (an outage must not pile them up in memory).
  await until(() => redis.status === 'ready', 'redis ready');
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await review?.close();
  await deleteKeys(redis, reviewPrefix);
  for (const prefix of shadowPrefixes) await deleteKeys(redis, `{${prefix}}`); // every shadow key carries its prefix as a hash tag
  redis?.disconnect();
  await spool?.remove();
  rmSync(modelsDir, { recursive: true, force: true });
  rmSync(labelsDir, { recursive: true, force: true });
});

/** Makes the serving record name `shadow` (or none) beside A, and waits until the follower serves it. */
async function serve(shadow: string | null): Promise<void> {
  await writeServingRecord(modelsDir, { active: A, previous: null, shadow, changedAt: new Date().toISOString(), changedBy: 'test' });
  await follower.check();
  expect(follower.slot.shadow?.modelVersion).toBe(shadow ?? undefined);
}

interface Live {
  app: FastifyInstance;
  registry: Registry;
  shadowPrefix: string;
}

/** An app of its own for one test: its own metrics, and shadow counts under their own prefix. */
async function liveApp(): Promise<Live> {
  const registry = new Registry();
  const shadowPrefix = testPrefix('shadow');
  shadowPrefixes.push(shadowPrefix);
  const app = await buildApp({
    tenants,
    serving: follower,
    maxEventLoopDelayMs: 0,
    reviewSink: review.sink,
    metricsRegistry: registry,
    shadowSampleRate: 1,
    shadowSink: new RedisShadowSink(redis, shadowPrefix, silent),
  });
  apps.push(app);
  return { app, registry, shadowPrefix };
}

type Answer = { submissionId: string; status: string; modelVersion: string; message: string };

/** Verifies the three legitimate and two spam messages with B as the shadow; waits until the shadow counted all five. */
async function shadowTraffic(live: Live): Promise<Answer[]> {
  await serve(B);
  const answers: Answer[] = [];
  for (const message of [...LEGITIMATE, ...SPAM]) answers.push({ ...(await verify(live.app, message)), message });
  await until(async () => (await readFormCounts(redis, new ShadowKeys(live.shadowPrefix), A, B, 'acme'))[0]?.scored === 5, 'shadow counts written');
  return answers;
}

/** The review item of `submissionId`, once it is queued: proof that the verification's hand-on has run. */
async function queuedItem(submissionId: string) {
  await review.sink.flush();
  await until(async () => (await review.store.items.listPending('acme', {}, 0, 100)).some((i) => i.submissionId === submissionId), 'queued for review');
  return (await review.store.items.listPending('acme', {}, 0, 100)).find((i) => i.submissionId === submissionId);
}

async function verify(app: FastifyInstance, message: string): Promise<{ submissionId: string; status: string; modelVersion: string }> {
  const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: { origin: 'https://example.com' }, payload: { apiKey: API_KEY, formId: 'contact', payload: { name: 'Sam', email: 'sam@example.com', message } } });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('shadow scoring on live traffic (real Redis)', () => {
  it('answers with the active model; counts both verdicts per account and form; queues disagreements with both verdicts', async () => {
    const live = await liveApp();
    const { registry } = live;
    const answers = await shadowTraffic(live);
    // The answers are the active model's; the shadow is never what the caller hears.
    expect(answers.map((a) => [a.modelVersion, a.status])).toEqual([...LEGITIMATE.map(() => [A, 'legitimate']), ...SPAM.map(() => [A, 'spam'])]);

    const keys = new ShadowKeys(live.shadowPrefix);
    const [contact] = await readFormCounts(redis, keys, A, B, 'acme');
    expect(contact).toMatchObject({ formId: 'contact', scored: 5, agreed: 2, pairs: { 'legitimate>spam': 3, 'spam>spam': 2 } });
    // Both models compute the same spam probability (B only moved the threshold): the sums say so.
    expect(contact?.meanShadow).toBeCloseTo(contact?.meanActive as number, 10);

    const metrics = await registry.metrics();
    expect(metrics).toContain(`formguard_shadow_scored_total{version="${B}"} 5`);
    expect(metrics).toContain(`formguard_shadow_agreed_total{version="${B}"} 2`);
    expect(metrics).toContain(`formguard_shadow_disagreed_total{version="${B}",active="legitimate",shadow="spam"} 3`);
    expect(metrics).toMatch(new RegExp(`formguard_model_info\\{version="${B}",feature_version="[^"]+",role="shadow"\\} 1`));

    // Every legitimate answer was a disagreement: queued for review, with the shadow's verdict beside the model's.
    await review.sink.flush();
    const legit = new Set(answers.filter((a) => a.status === 'legitimate').map((a) => a.submissionId));
    await until(async () => (await review.store.items.listPending('acme', {}, 0, 100)).filter((i) => legit.has(i.submissionId)).length === 3, 'disagreements queued');
    const queued = (await review.store.items.listPending('acme', {}, 0, 100)).filter((i) => legit.has(i.submissionId));
    for (const item of queued) {
      expect(item.verdict).toMatchObject({ status: 'legitimate', modelVersion: A });
      expect(item.shadow).toMatchObject({ status: 'spam', modelVersion: B });
    }
  }, 60_000);

  it('shadow-report gives the agreement counts and each model\'s precision, recall and FPR on the moderators\' labels', async () => {
    const live = await liveApp();
    const answers = await shadowTraffic(live);
    // The moderators agree with the active model on all five (exported as labels:export writes them).
    const lines = answers.map((a) =>
      JSON.stringify({ submissionId: a.submissionId, accountId: 'acme', formId: 'contact', label: a.status, fields: { message: a.message }, labelledAt: new Date().toISOString(), moderatorId: 'alice' }),
    );
    writeFileSync(path.join(labelsDir, '2026-02-01.jsonl'), `${lines.join('\n')}\n`);
    const r = await cli('cli/models.ts', ['shadow-report', '--account', 'acme', '--labels', labelsDir], { REDIS_URL, SHADOW_PREFIX: live.shadowPrefix });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`shadow ${B} beside active ${A}`);
    expect(r.stdout).toMatch(/^ {4}contact +5 +40\.0% +legitimate>spam 3 /m);
    // Each stored pair says why it was queued: the two spam verdicts, and the three disagreements.
    expect(r.stdout).toContain('5 labelled submissions, by why they were queued: spam 2, disagreement 3');
    // Every label had a chance of 1 of being queued: the estimate is the plain ratio, with Wilson's interval.
    // Active: right on all five. Shadow: calls all five spam (precision 2/5, every legitimate one a false positive).
    const est = (x: string) => `${x.replace('.', '\\.')}% \\[[\\d.]+%, [\\d.]+%\\]`;
    expect(r.stdout).toMatch(new RegExp(`active ${A} +${est('100.0')} +${est('100.0')} +${est('0.0')}`));
    expect(r.stdout).toMatch(new RegExp(`shadow ${B} +${est('40.0')} +${est('100.0')} +${est('100.0')}`));
    expect(r.stdout).toMatch(/queued as disagreement \(3, not a sample of the traffic\): 0 labelled spam; right: active 3, shadow 0/);

    const other = await cli('cli/models.ts', ['shadow-report', '--account', 'globex', '--labels', labelsDir], { REDIS_URL, SHADOW_PREFIX: live.shadowPrefix });
    expect(other).toMatchObject({ code: 0, stdout: 'nothing shadowed for account globex\n' });
  }, 60_000);

  it('scores nothing in the shadow once the shadow is off', async () => {
    const { app, registry } = await liveApp();
    await serve(null);
    const answer = await verify(app, FRESH_SPAM[0] as string);
    expect(answer).toMatchObject({ modelVersion: A, status: 'spam' });
    // A scored submission is queued only after the shadow scored it, so once it is queued the shadow had its turn.
    const item = await queuedItem(answer.submissionId);
    expect(item?.shadow).toBeUndefined();
    expect(await registry.metrics()).not.toMatch(/^formguard_shadow_scored_total\{/m);
  });

  it('scores nothing in the shadow at a sample rate of 0, though it loads the shadow', async () => {
    // Another instance with the shadow set but SHADOW_SAMPLE_RATE 0: it loads the shadow and scores nothing with it.
    await serve(B);
    const other = new ServingFollower({ modelsDir, log: silent });
    await other.slot.loaded;
    await other.check();
    expect(other.slot.shadow?.modelVersion).toBe(B);
    const otherRegistry = new Registry();
    const zero = await buildApp({ tenants, serving: other, maxEventLoopDelayMs: 0, reviewSink: review.sink, shadowSampleRate: 0, metricsRegistry: otherRegistry });
    try {
      const answer = await verify(zero, FRESH_SPAM[1] as string);
      expect(answer).toMatchObject({ modelVersion: A, status: 'spam' });
      const item = await queuedItem(answer.submissionId);
      expect(item?.shadow).toBeUndefined();
      expect(await otherRegistry.metrics()).not.toMatch(/^formguard_shadow_scored_total\{/m);
    } finally {
      await zero.close();
    }
  });
});
