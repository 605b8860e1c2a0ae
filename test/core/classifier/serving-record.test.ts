import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseServing,
  currentServing,
  readServingRecord,
  ServingRecordError,
  servingFile,
  writeServingRecord,
  type ServingRecord,
} from '../../../core/classifier/serving-record.ts';
import { copyModel, tempModelsDir } from '../../support/models-dir.ts';

const A = '20260101-000000';
const B = '20260102-000000';
let dir: string;

beforeAll(async () => {
  dir = tempModelsDir();
  await copyModel(dir, A);
  await copyModel(dir, B);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (active: string, previous: string | null, shadow: string | null = null): ServingRecord => ({
  active,
  previous,
  shadow,
  changedAt: '2026-02-01T10:00:00.000Z',
  changedBy: 'ada@host',
});

describe('models/serving.json', () => {
  it('with no record, the newest version serves (a fresh clone works as before)', async () => {
    expect(await readServingRecord(dir)).toBeUndefined();
    expect(await currentServing(dir)).toEqual({ active: B, previous: null, shadow: null, source: 'newest' });
  });

  it('the record decides over the newest folder, and MODEL_VERSION wins over the record', async () => {
    await writeServingRecord(dir, record(A, B, B));
    expect(await currentServing(dir)).toEqual({ active: A, previous: B, shadow: B, source: 'record' });
    expect(await currentServing(dir, B)).toEqual({ active: B, previous: B, shadow: B, source: 'pinned' });
    expect(chooseServing(undefined, [A, B], A)).toMatchObject({ active: A, source: 'pinned' });
  });

  it('is written whole or not at all: readers during many writes always read a valid record, and no temp file stays', async () => {
    let reads = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const r = await readServingRecord(dir);
        expect([A, B]).toContain(r?.active);
        reads++;
        await new Promise((res) => setImmediate(res));
      }
    })();
    for (let i = 0; i < 100; i++) await writeServingRecord(dir, i % 2 ? record(A, B) : record(B, A));
    stop = true;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp'))).toEqual([]);
    expect(JSON.parse(readFileSync(servingFile(dir), 'utf8'))).toEqual(record(A, B));
  });

  it('refuses to write an invalid record, leaving the old one', async () => {
    await writeServingRecord(dir, record(A, null));
    await expect(writeServingRecord(dir, { ...record(A, null), active: '../etc' })).rejects.toThrow();
    expect((await readServingRecord(dir))?.active).toBe(A);
  });

  it('a hand-edited record that is not one is refused, naming the field', async () => {
    writeFileSync(servingFile(dir), JSON.stringify({ active: 'latest', previous: null, changedAt: 'now', changedBy: 'x' }));
    await expect(readServingRecord(dir)).rejects.toThrow(ServingRecordError);
    await expect(readServingRecord(dir)).rejects.toThrow(/serving\.json: active: must be a model version/);
    writeFileSync(servingFile(dir), '{"active": ');
    await expect(readServingRecord(dir)).rejects.toThrow(/is not JSON/);
    rmSync(path.join(dir, 'serving.json'));
  });
});
