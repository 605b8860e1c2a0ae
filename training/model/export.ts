import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tf } from './backend.ts';
import { manifestSchema, type Manifest } from '../../service/classifier/manifest.ts';

/** Writes model.json + weights.bin (the TF.js layers format), manifest.json and report.md. */
export async function exportModel(dir: string, model: tf.LayersModel, manifest: Manifest, report: string): Promise<void> {
  const valid = manifestSchema.parse(manifest);
  mkdirSync(dir, { recursive: true });
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      const data = artifacts.weightData;
      const bytes = Array.isArray(data) ? Buffer.concat(data.map((b) => Buffer.from(b))) : Buffer.from(data as ArrayBuffer);
      writeFileSync(path.join(dir, 'weights.bin'), bytes);
      const modelJson = {
        format: 'layers-model',
        generatedBy: `TensorFlow.js tfjs-layers v${tf.version.tfjs}`,
        convertedBy: null,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: artifacts.weightSpecs }],
      };
      writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON', weightDataBytes: bytes.length } };
    }),
  );
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(valid, null, 2)}\n`);
  writeFileSync(path.join(dir, 'report.md'), report);
}
