import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServingRecord } from '../../../core/classifier/serving-record.ts';
import { ServingFollower } from '../../../service/models/serving-follower.ts';
import { captureLogger, testApp } from '../helpers.ts';
import { copyModel, corruptModel, tempModelsDir } from '../../support/models-dir.ts';

const A = '20260101-000000';
const B = '20260102-000000';
const BROKEN = '20260103-000000';
let dir: string;
const followers: ServingFollower[] = [];

beforeAll(async () => {
  dir = tempModelsDir();
  await copyModel(dir, A);
  await copyModel(dir, B, (m) => (m.threshold = 0.9));
  await corruptModel(dir, BROKEN);
});
afterAll(() => {
  for (const f of followers) f.stop();
  rmSync(dir, { recursive: true, force: true });
});

function follow(pinned?: string) {
  const logs = captureLogger();
  const f = new ServingFollower({ modelsDir: dir, log: logs.logger, pollMs: 100, ...(pinned === undefined ? {} : { pinned }) });
  followers.push(f);
  return { f, logs };
}

const record = (active: string, previous: string | null, shadow: string | null = null) => ({ active, previous, shadow, changedAt: new Date().toISOString(), changedBy: 'test' });

describe('ServingFollower at start-up', () => {
  it('with no record serves the newest folder (here a broken one: start-up fails, as without a record before)', async () => {
    // BROKEN is the newest folder: with no record, the newest is what serves, so start-up fails loudly as before.
    const { f } = follow();
    await expect(f.slot.loaded).rejects.toThrow(/weights\.bin (is shorter|does not match its digest)/);
  });

  it('MODEL_VERSION wins over the record, and says so at start-up', async () => {
    await writeServingRecord(dir, record(A, null));
    const { f, logs } = follow(B);
    expect((await f.slot.loaded).modelVersion).toBe(B);
    expect(logs.lines).toContainEqual(expect.objectContaining({ modelVersion: B, recordActive: A, msg: expect.stringMatching(/^MODEL_VERSION pins the served model/) }));
    // A change of the record's active version does not move a pinned instance.
    await writeServingRecord(dir, record(A, B));
    await f.check();
    expect(f.slot.classifier?.modelVersion).toBe(B);
  });

  it('an active model that cannot load falls back to the previous one, with the problem said', async () => {
    await writeServingRecord(dir, record(BROKEN, A));
    const { f } = follow();
    expect((await f.slot.loaded).modelVersion).toBe(A);
    expect(f.slot.problems).toEqual([expect.stringContaining(`model ${BROKEN} cannot be loaded`)]);
  });

  it('loads the shadow beside the active model; /readyz and formguard_model_info name both', async () => {
    await writeServingRecord(dir, record(A, null, B));
    const { f } = follow();
    const app = await testApp({ classifier: undefined, serving: f });
    try {
      await f.slot.loaded;
      await f.check();
      expect(f.slot.shadow?.modelVersion).toBe(B);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toMatchObject({ status: 'ready', modelVersion: A, shadowVersion: B });
      const metrics = await app.metrics.registry.metrics();
      expect(metrics).toMatch(new RegExp(`formguard_model_info\\{version="${A}",feature_version="[^"]+",role="active"\\} 1`));
      expect(metrics).toMatch(new RegExp(`formguard_model_info\\{version="${B}",feature_version="[^"]+",role="shadow"\\} 1`));
      // shadow --off
      await writeServingRecord(dir, record(A, null, null));
      await f.check();
      expect(f.slot.shadow).toBeUndefined();
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ shadowVersion: null });
    } finally {
      await app.close();
    }
  });

  it('an invalid record at start-up stops it, naming the field (the newest folder may be an unpromoted candidate)', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/serving.json`, '{ "active": "B" }');
    const { f } = follow();
    await expect(f.slot.loaded).rejects.toThrow(/serving\.json: active: must be a model version/);
  });

  it('an invalid record keeps what serves and is a problem until fixed', async () => {
    await writeServingRecord(dir, record(A, null));
    const { f } = follow();
    await f.slot.loaded;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/serving.json`, '{ "active": "B" }');
    await f.check();
    expect(f.slot.classifier?.modelVersion).toBe(A);
    expect(f.slot.problems).toEqual([expect.stringMatching(/serving\.json/)]);
    await writeServingRecord(dir, record(B, A));
    await f.check();
    expect(f.slot.classifier?.modelVersion).toBe(B);
    expect(f.slot.problems).toEqual([]);
  });
});
