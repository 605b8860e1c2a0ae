import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServingRecord } from '../../../core/classifier/serving-record.ts';
import { buildApp } from '../../../service/app.ts';
import { ServingFollower } from '../../../service/models/serving-follower.ts';
import { addAccountCorrections, copyModel, tempModelsDir } from '../../support/models-dir.ts';
import { silent } from '../../support/logs.ts';
import { KEY, OTHER_KEY } from '../../support/tenants.ts';
import { tenants } from '../helpers.ts';

const A = '20260101-000000';
/** The same weights with a correction for account acme only, so strong that it calls all of acme's traffic spam. */
const B = '20260102-000000';
const MESSAGE = 'Hello, I would like to book a table for four people on Friday evening. Thanks, Ada';

let modelsDir: string;
let follower: ServingFollower;
let app: FastifyInstance;
const registry = new Registry();

beforeAll(async () => {
  modelsDir = tempModelsDir();
  await copyModel(modelsDir, A);
  addAccountCorrections(await copyModel(modelsDir, B), { acme: { bias: 40 } });
  await writeServingRecord(modelsDir, { active: A, previous: null, shadow: B, changedAt: new Date().toISOString(), changedBy: 'test' });
  follower = new ServingFollower({ modelsDir, log: silent });
  await follower.slot.loaded;
  await follower.check();
  app = await buildApp({ tenants: tenants(), serving: follower, maxEventLoopDelayMs: 0, metricsRegistry: registry, shadowSampleRate: 1 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

describe('the shadow model scores with the account’s own correction', () => {
  it("applies the shadow's correction for the submitting account, and only for it", async () => {
    const send = (apiKey: string, formId: string, origin: string) =>
      app.inject({ method: 'POST', url: '/v1/verify', headers: { origin }, payload: { apiKey, formId, payload: { name: 'Ada', message: MESSAGE } } });
    const acme = await send(KEY, 'contact', 'https://example.com');
    const globex = await send(OTHER_KEY, 'globex-form', 'https://globex.test');
    expect([acme.json().status, globex.json().status]).toEqual(['legitimate', 'legitimate']);
    // Scored after the answer: wait for both.
    let metrics = '';
    for (let i = 0; i < 100 && !metrics.includes(`formguard_shadow_scored_total{version="${B}"} 2`); i++) {
      await new Promise((r) => setTimeout(r, 10));
      metrics = await registry.metrics();
    }
    // acme's correction turns the shadow's verdict; globex has none, so the shadow agrees there.
    expect(metrics).toContain(`formguard_shadow_disagreed_total{version="${B}",active="legitimate",shadow="spam"} 1`);
    expect(metrics).toContain(`formguard_shadow_agreed_total{version="${B}"} 1`);
  });
});
