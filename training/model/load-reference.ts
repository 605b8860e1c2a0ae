import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { tf } from './backend.ts';

/** Loads an exported model folder into TF.js (the reference implementation the fast path must match). */
export async function loadReferenceModel(dir: string): Promise<tf.LayersModel> {
  const json = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as {
    modelTopology: object;
    weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
  };
  const group = json.weightsManifest[0];
  if (!group) throw new Error(`${dir}/model.json has no weights manifest`);
  const buffers = await Promise.all(group.paths.map((p) => readFile(path.join(dir, path.basename(p)))));
  const bytes = Buffer.concat(buffers);
  const weightData = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return tf.loadLayersModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: group.weights, weightData }));
}
