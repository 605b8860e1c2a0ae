import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listModelVersions, loadClassifier } from '../../service/classifier/load.ts';
import { FeatureVersionMismatchError, ModelLoadError } from '../../service/classifier/errors.ts';
import { repoRoot } from '../../service/config/env.ts';

const bundled = path.join(repoRoot, 'models');
let dir: string;
let version: string;

beforeAll(async () => {
  const versions = await listModelVersions(bundled);
  version = versions[versions.length - 1] as string;
  dir = mkdtempSync(path.join(tmpdir(), 'formguard-models-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the bundled model under `name`, with its manifest edited by `edit`. */
function copyAs(name: string, edit: (m: Record<string, unknown>) => void = () => {}): void {
  cpSync(path.join(bundled, version), path.join(dir, name), { recursive: true });
  const file = path.join(dir, name, 'manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8'));
  m.version = name;
  edit(m);
  writeFileSync(file, JSON.stringify(m));
}

describe('loadClassifier', () => {
  it('loads the newest version by default, or the one asked for', async () => {
    copyAs('20250101-000000');
    copyAs('20250301-000000');
    expect((await loadClassifier({ modelsDir: dir })).modelVersion).toBe('20250301-000000');
    expect((await loadClassifier({ modelsDir: dir, version: '20250101-000000' })).modelVersion).toBe('20250101-000000');
    await expect(loadClassifier({ modelsDir: dir, version: '20990101-000000' })).rejects.toThrow(/not found.*have: 20250101-000000, 20250301-000000/);
  });

  it('refuses a model trained with other feature settings', async () => {
    copyAs('20250401-000000', (m) => {
      (m.featureSettings as Record<string, unknown>).charNgramSizes = [2, 3];
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250401-000000' })).rejects.toThrow(FeatureVersionMismatchError);
  });

  it('refuses a model from another feature-extraction revision', async () => {
    copyAs('20250402-000000', (m) => {
      (m.featureSettings as Record<string, unknown>).revision = 99;
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250402-000000' })).rejects.toThrow(/trained with feature version/);
  });

  it('names the problem when a manifest or weights file is broken', async () => {
    copyAs('20250501-000000', (m) => {
      delete m.threshold;
    });
    await expect(loadClassifier({ modelsDir: dir, version: '20250501-000000' })).rejects.toThrow(/manifest\.json: threshold/);
    copyAs('20250502-000000');
    writeFileSync(path.join(dir, '20250502-000000', 'weights.bin'), Buffer.alloc(16));
    await expect(loadClassifier({ modelsDir: dir, version: '20250502-000000' })).rejects.toThrow(ModelLoadError);
    await expect(loadClassifier({ modelsDir: path.join(dir, 'nope') })).rejects.toThrow(/models folder not found/);
  });
});
