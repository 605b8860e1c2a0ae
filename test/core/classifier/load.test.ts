import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listModelVersions, loadClassifier } from '../../../core/classifier/load.ts';
import { FeatureVersionMismatchError, ModelLoadError } from '../../../core/classifier/errors.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { copyModel } from '../../support/models-dir.ts';

const bundled = path.join(repoRoot, 'models');
let dir: string;
let version: string;

beforeAll(async () => {
  const versions = await listModelVersions(bundled);
  version = versions[versions.length - 1] as string;
  dir = mkdtempSync(path.join(tmpdir(), 'formguard-models-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadClassifier', () => {
  it('loads the newest version by default, or the one asked for', async () => {
    await copyModel(dir, '20250101-000000');
    await copyModel(dir, '20250301-000000');
    expect((await loadClassifier({ modelsDir: dir })).modelVersion).toBe('20250301-000000');
    expect((await loadClassifier({ modelsDir: dir, version: '20250101-000000' })).modelVersion).toBe('20250101-000000');
    await expect(loadClassifier({ modelsDir: dir, version: '20990101-000000' })).rejects.toThrow(
      /not found.*have: 20250101-000000, 20250301-000000/,
    );
  });

  it('refuses a model trained with other feature settings', async () => {
    await copyModel(dir, '20250401-000000', (m) => {
      (m.featureSettings as Record<string, unknown>).charNgramSizes = [2, 3];
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250401-000000' })).rejects.toThrow(FeatureVersionMismatchError);
  });

  it('refuses a model from another feature-extraction revision', async () => {
    await copyModel(dir, '20250402-000000', (m) => {
      (m.featureSettings as Record<string, unknown>).revision = 99;
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250402-000000' })).rejects.toThrow(/trained with feature version/);
  });

  it('reads a float32 export (from before quantization) to the same scores as the uint8 one', async () => {
    await copyModel(dir, '20250601-000000', (m) => {
      delete m.modelFiles; // a float32 export predates digests too
    });
    const folder = path.join(dir, '20250601-000000');
    const json = JSON.parse(readFileSync(path.join(folder, 'model.json'), 'utf8'));
    const specs = json.weightsManifest[0].weights as { shape: number[]; quantization?: { scale: number; min: number } }[];
    const bytes = readFileSync(path.join(folder, 'weights.bin'));
    const parts: Buffer[] = [];
    let offset = 0;
    for (const spec of specs) {
      const size = spec.shape.reduce((a, b) => a * b, 1);
      const q = spec.quantization;
      if (q) parts.push(Buffer.from(Float32Array.from(bytes.subarray(offset, offset + size), (v) => v * q.scale + q.min).buffer));
      else parts.push(bytes.subarray(offset, offset + size * 4));
      offset += size * (q ? 1 : 4);
      delete spec.quantization;
    }
    writeFileSync(path.join(folder, 'weights.bin'), Buffer.concat(parts));
    writeFileSync(path.join(folder, 'model.json'), JSON.stringify(json));
    const fields = { name: 'Ann', message: 'Cheap backlinks here: http://seo.example.top buy now' };
    const float = await loadClassifier({ modelsDir: dir, version: '20250601-000000' });
    const uint8 = await loadClassifier({ modelsDir: bundled, version });
    expect(float.scorer.table).toBeInstanceOf(Float32Array);
    expect(uint8.scorer.table).toBeInstanceOf(Uint8Array);
    expect({ ...float.classify(fields), modelVersion: version }).toEqual(uint8.classify(fields));
  });

  it('names the problem when a manifest or weights file is broken', async () => {
    await copyModel(dir, '20250501-000000', (m) => {
      delete m.threshold;
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250501-000000' })).rejects.toThrow(/manifest\.json: threshold/);
    await copyModel(dir, '20250502-000000');
    writeFileSync(path.join(dir, '20250502-000000', 'weights.bin'), Buffer.alloc(16));
    await expect(loadClassifier({ modelsDir: dir, version: '20250502-000000' })).rejects.toThrow(ModelLoadError);
    await expect(loadClassifier({ modelsDir: path.join(dir, 'nope') })).rejects.toThrow(/models folder not found/);
  });
});
