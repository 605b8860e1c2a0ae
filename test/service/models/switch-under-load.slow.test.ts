import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { writeServingRecord } from '../../../core/classifier/serving-record.ts';
import { buildApp } from '../../../service/app.ts';
import { ServingFollower } from '../../../service/models/serving-follower.ts';
import { captureLogger, tenants } from '../helpers.ts';
import { KEY, tenantsFile } from '../../support/tenants.ts';
import { copyModel, corruptModel, tempModelsDir } from '../../support/models-dir.ts';
import { until } from '../../support/until.ts';

const A = '20260101-000000';
const B = '20260102-000000';
const BROKEN = '20260103-000000';
/** What the issue promises: a change of the record serves within this long on every instance. */
const SWITCH_DEADLINE_MS = 5000;
const WORKERS = 24;

let dir: string;
let app: FastifyInstance;
let base: string;
const logs = captureLogger();

beforeAll(async () => {
  dir = tempModelsDir();
  await copyModel(dir, A);
  await copyModel(dir, B, (m) => (m.threshold = 0.9));
  await corruptModel(dir, BROKEN);
  // B is the newest folder; the record says A serves.
  await writeServingRecord(dir, { active: A, previous: null, shadow: null, changedAt: new Date().toISOString(), changedBy: 'test' });
  const serving = new ServingFollower({ modelsDir: dir, log: logs.logger });
  app = await buildApp({ tenants: tenants(tenantsFile({ rateLimit: { max: 1_000_000, windowSeconds: 60 } })), serving, maxEventLoopDelayMs: 0, logger: logs.logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
  await serving.slot.loaded;
}, 30_000);

afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly modelVersion: string | undefined;
  readonly at: number;
}

/** `WORKERS` clients each sending one request after another until stopped: a steady load, answers in order per client. */
function steadyLoad(): { stop: () => Promise<Answer[][]> } {
  let running = true;
  const body = JSON.stringify({ apiKey: KEY, formId: 'contact', payload: { name: 'Ada', email: 'ada@example.com', message: 'Could you send me a quote for two chairs?' } });
  const worker = async (): Promise<Answer[]> => {
    const answers: Answer[] = [];
    while (running) {
      try {
        const res = await fetch(`${base}/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://example.com' }, body });
        const json = (await res.json()) as { modelVersion?: string };
        answers.push({ status: res.status, modelVersion: json.modelVersion, at: Date.now() });
      } catch {
        answers.push({ status: 0, modelVersion: undefined, at: Date.now() });
      }
    }
    return answers;
  };
  const all = Promise.all(Array.from({ length: WORKERS }, worker));
  return {
    stop: async () => {
      running = false;
      return all;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Whether `check` holds within the switch deadline (the load is stopped before the answer is asserted). */
function held(check: () => Promise<boolean>, what: string): Promise<boolean> {
  return until(check, what, SWITCH_DEADLINE_MS, 50).then(
    () => true,
    () => false,
  );
}

/** Writes the record while `load` runs and checks every client moved from `from` to `to` for good. */
async function switchUnderLoad(from: string, to: string, previous: string): Promise<void> {
  const load = steadyLoad();
  await sleep(500);
  const changedAt = Date.now();
  await writeServingRecord(dir, { active: to, previous, shadow: null, changedAt: new Date(changedAt).toISOString(), changedBy: 'test' });
  // Both a fresh request and /readyz show the new model within the deadline.
  const switched = await held(async () => (await readyz()).body.modelVersion === to, 'the new model in /readyz');
  await sleep(700);
  const perClient = await load.stop();
  expect(switched).toBe(true);

  const answers = perClient.flat();
  expect(answers.length).toBeGreaterThan(WORKERS * 5);
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  for (const client of perClient) {
    const first = client.findIndex((a) => a.modelVersion === to);
    // Every client saw the switch, only after the record changed, and never the old model again.
    expect(first).toBeGreaterThan(0);
    expect(client[first]!.at).toBeGreaterThanOrEqual(changedAt);
    expect(client[first]!.at - changedAt).toBeLessThanOrEqual(SWITCH_DEADLINE_MS);
    expect(client.slice(0, first).every((a) => a.modelVersion === from)).toBe(true);
    expect(client.slice(first).every((a) => a.modelVersion === to)).toBe(true);
  }
}

describe('the service follows models/serving.json under steady load', () => {
  it('serves the record\'s active model, not the newest folder', async () => {
    const res = await readyz();
    expect(res).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready', modelVersion: A, shadowVersion: null }) });
  });

  it('promote: every answer is 200, and each client moves from A to B within 5 s and never back', async () => {
    await switchUnderLoad(A, B, A);
  }, 30_000);

  it('rollback: back from B to A the same way', async () => {
    await switchUnderLoad(B, A, B);
  }, 30_000);

  it('a corrupt candidate leaves A serving, still ready, with the problem in /readyz and a metric', async () => {
    const load = steadyLoad();
    await sleep(300);
    await writeServingRecord(dir, { active: BROKEN, previous: A, shadow: null, changedAt: new Date().toISOString(), changedBy: 'test' });
    const reported = await held(async () => JSON.stringify((await readyz()).body.problems ?? []).includes(BROKEN), 'the problem in /readyz');
    await sleep(300);
    const answers = (await load.stop()).flat();
    expect(reported).toBe(true);
    expect(answers.filter((a) => a.status !== 200 || a.modelVersion !== A)).toEqual([]);
    const res = await readyz();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', modelVersion: A });
    expect(res.body.problems).toEqual([expect.stringMatching(new RegExp(`^model ${BROKEN} cannot be loaded, the current one keeps serving: .*weights\\.bin (is shorter|does not match its digest)`))]);
    const metrics = await app.metrics.registry.metrics();
    expect(metrics).toContain(`formguard_model_load_failures_total{version="${BROKEN}"} 1`);
    expect(metrics).toContain(`formguard_model_info{version="${A}",feature_version=`);
    expect(logs.lines.some((l) => l.msg === 'model cannot be loaded; the current one keeps serving' && l.modelVersion === BROKEN)).toBe(true);

    // Naming a loadable model again clears the problem.
    await writeServingRecord(dir, { active: A, previous: B, shadow: null, changedAt: new Date().toISOString(), changedBy: 'test' });
    expect(await held(async () => (await readyz()).body.problems === undefined, 'no problem in /readyz')).toBe(true);
  }, 30_000);
});
