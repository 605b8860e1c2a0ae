import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportModel } from '../../training/model/export.ts';
import { initBackend, tf } from '../../training/model/backend.ts';
import { manifestSchema } from '../../core/classifier/manifest.ts';
import { listModelVersions } from '../../core/classifier/load.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';

let models = '';
afterEach(() => rmSync(models, { recursive: true, force: true }));

describe('an export that fails midway', () => {
  it('leaves no folder behind, hidden or not, and no version the service would list', async () => {
    await initBackend('cpu');
    models = mkdtempSync(path.join(tmpdir(), 'formguard-export-fail-'));
    const [version] = await listModelVersions(path.join(repoRoot, 'models'));
    const manifest = manifestSchema.parse(
      JSON.parse(readFileSync(path.join(repoRoot, 'models', version as string, 'manifest.json'), 'utf8')),
    );
    // A model without the hashed layer: the save handler throws after the partial folder was made.
    const model = tf.sequential({ layers: [tf.layers.dense({ units: 1, inputShape: [2] })] });
    const hashed = { table: new Uint8Array(4), scale: 1, offset: 0 };
    await expect(exportModel(path.join(models, manifest.version), model, manifest, 'report', hashed)).rejects.toThrow(
      /no .* weight to quantize/,
    );
    model.dispose();
    expect(readdirSync(models)).toEqual([]);
    expect(await listModelVersions(models)).toEqual([]);
  });
});
