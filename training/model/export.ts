import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { makeDir } from '../../core/fs/make-dir.ts';
import { syncDir } from '../../core/fs/sync-dir.ts';
import { withSyncedFile } from '../../core/fs/synced-file.ts';
import { tf } from './backend.ts';
import { manifestSchema, type Manifest } from '../../core/classifier/manifest.ts';
import type { HashedWeights } from '../../core/classifier/hashed-weights.ts';
import { ACCOUNTS_FILE, accountsFileSchema, type AccountsFile } from '../../core/classifier/account-corrections.ts';
import { LAYER_NAMES } from './linear-model.ts';

/** The list of texts a model learned from, beside its manifest (not served: the service never reads it). */
export const TRAINED_ON_FILE = 'trained-on.txt';

export class ModelExistsError extends Error {
  override name = 'ModelExistsError';
}

/**
 * Writes model.json + weights.bin (the TF.js layers format), accounts.json when there are per-account corrections,
 * manifest.json (with the sha256 of the files the service reads) and report.md, and returns the manifest as written.
 * Everything is written before the folder is renamed into place. The hashed layer
 * goes out as its uint8 table with TF.js quantization metadata; `model` must hold its dequantized values.
 * The files are written and fsync'd in a hidden `.<version>.partial` folder that is then renamed to `dir`: the
 * service loads the newest version, so a crash or a full disk mid-export must not leave a half-written one there.
 */
export async function exportModel(
  dir: string,
  model: tf.LayersModel,
  manifest: Manifest,
  report: string,
  hashed: HashedWeights & { readonly table: Uint8Array },
  accounts?: AccountsFile,
  trainedOn?: string,
): Promise<Manifest> {
  const valid = manifestSchema.parse(manifest);
  if ((trainedOn !== undefined) !== (valid.data.trainedOn !== undefined))
    throw new Error('the manifest must list trained-on.txt exactly when it is exported');
  if ((accounts !== undefined) !== (valid.accountCorrections !== undefined))
    throw new Error('the manifest must list accounts.json exactly when it is exported');
  if (await stat(dir).catch(() => null)) throw new ModelExistsError(`${dir} already exists: not overwriting a model`);
  const parent = path.dirname(dir);
  const partial = path.join(parent, `.${path.basename(dir)}.partial`);
  await makeDir(parent);
  // What a crashed export of this version left behind.
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial);
  let written: Manifest;
  try {
    // Before the model's files: writeModel syncs the folder last.
    if (trainedOn !== undefined) await writeDurably(path.join(partial, TRAINED_ON_FILE), trainedOn);
    written = await writeModel(partial, model, valid, report, hashed, accounts);
  } catch (err) {
    // A failed export (a full disk, say) leaves nothing behind; only a crash can, and the next export clears it.
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
  await rename(partial, dir);
  await syncDir(parent);
  return written;
}

async function writeModel(
  partial: string,
  model: tf.LayersModel,
  valid: Manifest,
  report: string,
  hashed: HashedWeights & { readonly table: Uint8Array },
  accounts: AccountsFile | undefined,
): Promise<Manifest> {
  // The digest of each served file as written, so the loader can refuse one that changed after export.
  const modelFiles: NonNullable<Manifest['modelFiles']> = {};
  const record = (name: string, data: string | Uint8Array) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    modelFiles[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  };
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      const data = artifacts.weightData;
      const floats = Array.isArray(data) ? Buffer.concat(data.map((b) => Buffer.from(b))) : Buffer.from(data as ArrayBuffer);
      const specs: tf.io.WeightsManifestEntry[] = [];
      const parts: Buffer[] = [];
      let offset = 0;
      for (const spec of artifacts.weightSpecs ?? []) {
        const length = spec.shape.reduce((a, b) => a * b, 1) * 4;
        if (spec.name === `${LAYER_NAMES.weights}/embeddings`) {
          specs.push({ ...spec, quantization: { dtype: 'uint8', scale: hashed.scale, min: hashed.offset } });
          parts.push(Buffer.from(hashed.table.buffer, hashed.table.byteOffset, hashed.table.byteLength));
        } else {
          specs.push(spec);
          parts.push(floats.subarray(offset, offset + length));
        }
        offset += length;
      }
      if (!specs.some((s) => s.quantization)) throw new Error(`the model has no ${LAYER_NAMES.weights}/embeddings weight to quantize`);
      const bytes = Buffer.concat(parts);
      await writeDurably(path.join(partial, 'weights.bin'), bytes);
      record('weights.bin', bytes);
      const modelJson = {
        format: 'layers-model',
        generatedBy: `TensorFlow.js tfjs-layers v${tf.version.tfjs}`,
        convertedBy: null,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
      };
      const modelJsonText = JSON.stringify(modelJson);
      await writeDurably(path.join(partial, 'model.json'), modelJsonText);
      record('model.json', modelJsonText);
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON', weightDataBytes: bytes.length } };
    }),
  );
  if (accounts !== undefined) {
    const text = `${JSON.stringify(accountsFileSchema.parse(accounts))}\n`;
    await writeDurably(path.join(partial, ACCOUNTS_FILE), text);
    record(ACCOUNTS_FILE, text);
  }
  const written: Manifest = { ...valid, modelFiles };
  await writeDurably(path.join(partial, 'manifest.json'), `${JSON.stringify(written, null, 2)}\n`);
  await writeDurably(path.join(partial, 'report.md'), report);
  await syncDir(partial);
  return written;
}

function writeDurably(file: string, data: string | Uint8Array): Promise<void> {
  return withSyncedFile(file, 'w', undefined, (handle) => handle.writeFile(data));
}
