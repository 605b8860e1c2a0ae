import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tf } from './backend.ts';
import { manifestSchema, type Manifest } from '../../service/classifier/manifest.ts';
import type { HashedWeights } from '../../service/classifier/hashed-weights.ts';
import { LAYER_NAMES } from './linear-model.ts';

/**
 * Writes model.json + weights.bin (the TF.js layers format), manifest.json and report.md. The hashed layer
 * goes out as its uint8 table with TF.js quantization metadata; `model` must hold its dequantized values.
 */
export async function exportModel(
  dir: string,
  model: tf.LayersModel,
  manifest: Manifest,
  report: string,
  hashed: HashedWeights & { readonly table: Uint8Array },
): Promise<void> {
  const valid = manifestSchema.parse(manifest);
  mkdirSync(dir, { recursive: true });
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
      writeFileSync(path.join(dir, 'weights.bin'), bytes);
      const modelJson = {
        format: 'layers-model',
        generatedBy: `TensorFlow.js tfjs-layers v${tf.version.tfjs}`,
        convertedBy: null,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
      };
      writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON', weightDataBytes: bytes.length } };
    }),
  );
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(valid, null, 2)}\n`);
  writeFileSync(path.join(dir, 'report.md'), report);
}
