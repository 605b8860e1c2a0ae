import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelLoadError } from '../../../core/classifier/errors.ts';
import { listModelVersions, loadClassifier } from '../../../core/classifier/load.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';

// A model file changed after export, with its size kept, must not load: it would serve wrong verdicts silently.
const bundled = path.join(repoRoot, 'models');
let dir: string;
let version: string;

beforeAll(async () => {
  const versions = await listModelVersions(bundled);
  version = versions[versions.length - 1] as string;
  dir = mkdtempSync(path.join(tmpdir(), 'formguard-integrity-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function copy(name: string): string {
  const to = path.join(dir, name);
  cpSync(path.join(bundled, version), to, { recursive: true });
  return to;
}

describe('model file digests', () => {
  it('the bundled model carries a digest of each file it is served from, and loads', async () => {
    const manifest = JSON.parse(readFileSync(path.join(bundled, version, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.modelFiles).sort()).toEqual(['model.json', 'weights.bin']);
    expect((await loadClassifier({ modelsDir: bundled, version })).modelVersion).toBe(version);
  });

  it.each([
    ['zeros', (n: number) => Buffer.alloc(n)],
    ['random bytes', (n: number) => randomBytes(n)],
  ])('refuses weights.bin overwritten with %s of the same length, naming the file', async (what, fill) => {
    const models = path.join(dir, what.replace(' ', '-'));
    const to = copy(path.join(path.basename(models), version));
    const weights = path.join(to, 'weights.bin');
    writeFileSync(weights, fill(statSync(weights).size));
    const load = loadClassifier({ modelsDir: models, version });
    await expect(load).rejects.toThrow(ModelLoadError);
    await expect(load).rejects.toThrow(`${weights} does not match its digest in manifest.json`);
  });

  it('refuses an edited model.json', async () => {
    const models = path.join(dir, 'edited');
    const to = copy(path.join('edited', version));
    const file = path.join(to, 'model.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"format"', '"format" '));
    await expect(loadClassifier({ modelsDir: models, version })).rejects.toThrow(`${file} does not match its digest`);
  });

  it('loads an export from before digests (no modelFiles), as before', async () => {
    const models = path.join(dir, 'older');
    const to = copy(path.join('older', version));
    const file = path.join(to, 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8'));
    delete m.modelFiles;
    writeFileSync(file, JSON.stringify(m));
    const c = await loadClassifier({ modelsDir: models, version });
    expect(c.manifest.modelFiles).toBeUndefined();
  });
});
