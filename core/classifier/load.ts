import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor, featureVersion } from '../features/index.ts';
import { FeatureVersionMismatchError, ModelLoadError } from './errors.ts';
import { LinearClassifier } from './linear-classifier.ts';
import { dequantize, floatWeights, type HashedWeights } from './hashed-weights.ts';
import { LinearScorer } from './linear-scorer.ts';
import { MODEL_VERSION_PATTERN, manifestSchema, type Manifest } from './manifest.ts';
import { readAccountCorrections } from './account-corrections.ts';

export interface LoadOptions {
  readonly modelsDir: string;
  /** A version folder name; default: the newest (versions sort by time). */
  readonly version?: string;
}

const modelJsonSchema = z.object({
  format: z.literal('layers-model'),
  weightsManifest: z
    .array(
      z.object({
        paths: z.array(z.string()),
        weights: z.array(
          z.object({
            name: z.string(),
            shape: z.array(z.number().int()),
            dtype: z.literal('float32'),
            // TF.js affine quantization (value = q * scale + min); the exporter uses it for the hashed layer.
            quantization: z.object({ dtype: z.literal('uint8'), scale: z.number().positive(), min: z.number() }).optional(),
          }),
        ),
      }),
    )
    .length(1),
});

/** Version folders under `modelsDir`, oldest first. */
export async function listModelVersions(modelsDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(modelsDir);
  } catch {
    throw new ModelLoadError(`models folder not found: ${modelsDir}`);
  }
  const versions: string[] = [];
  for (const n of names.filter((x) => MODEL_VERSION_PATTERN.test(x)).sort()) {
    if ((await stat(path.join(modelsDir, n, 'manifest.json')).catch(() => null))?.isFile()) versions.push(n);
  }
  return versions;
}

export async function readManifest(dir: string): Promise<Manifest> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
  } catch (e) {
    throw new ModelLoadError(`cannot read ${path.join(dir, 'manifest.json')}: ${(e as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelLoadError(`${path.join(dir, 'manifest.json')}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Refuses a model unless this code featurizes exactly as its training run did. */
export function checkFeatureVersion(m: Manifest): void {
  const settings = m.featureSettings;
  const current = DEFAULT_FEATURE_SETTINGS.revision;
  if (settings.revision !== current || featureVersion(settings) !== m.featureVersion) {
    throw new FeatureVersionMismatchError(
      `model ${m.version} was trained with feature version ${m.featureVersion}; this service extracts features at revision ${current} ` +
        `(${featureVersion({ ...settings, revision: current })} for the model's settings). Retrain with \`npm run train\` or run a matching service version.`,
    );
  }
}

export async function loadClassifier(opts: LoadOptions): Promise<LinearClassifier> {
  const versions = await listModelVersions(opts.modelsDir);
  const version = opts.version ?? versions[versions.length - 1];
  if (!version) throw new ModelLoadError(`no model versions in ${opts.modelsDir} (run \`npm run train\`)`);
  if (!versions.includes(version))
    throw new ModelLoadError(`model version ${version} not found in ${opts.modelsDir} (have: ${versions.join(', ') || 'none'})`);
  return loadModelFolder(path.join(opts.modelsDir, version));
}

/**
 * One model folder (manifest.json, model.json, weights.bin, and accounts.json when the manifest lists it), whatever its
 * name: `npm run evaluate -- --model <folder>`.
 */
export async function loadModelFolder(dir: string): Promise<LinearClassifier> {
  const manifest = await readManifest(dir);
  checkFeatureVersion(manifest);
  const extractor = new FeatureExtractor(manifest.featureSettings);
  const scorer = await readScorer(dir, extractor.dimension, manifest.modelFiles);
  const corrections = manifest.accountCorrections
    ? await readAccountCorrections(dir, extractor.dimension, (file, bytes) => checkDigest(file, bytes, manifest.modelFiles))
    : undefined;
  return new LinearClassifier(manifest, extractor, scorer, corrections);
}

type ModelFiles = Manifest['modelFiles'];

/** Holds a file's bytes to the digest its manifest records: a file changed since export is refused, by name. */
function checkDigest(file: string, bytes: Buffer, files: ModelFiles): void {
  if (files === undefined) return; // an export from before digests: the service warns that it cannot be checked
  const name = path.basename(file);
  const expected = files[name];
  if (expected === undefined)
    throw new ModelLoadError(`${file} has no digest in manifest.json (modelFiles): refusing a model file that cannot be checked`);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== expected.bytes || actual !== expected.sha256) {
    throw new ModelLoadError(
      `${file} does not match its digest in manifest.json (sha256 ${actual.slice(0, 12)}…, ${bytes.length} bytes; expected ${expected.sha256.slice(0, 12)}…, ${expected.bytes} bytes): the file changed after export; restore or retrain the model`,
    );
  }
}

/** Reads the TF.js layers files and keeps the three weight arrays the forward pass needs. */
async function readScorer(dir: string, dimension: number, files: ModelFiles): Promise<LinearScorer> {
  let modelJson: z.infer<typeof modelJsonSchema>;
  const modelJsonFile = path.join(dir, 'model.json');
  const raw = await readWeightsFile(modelJsonFile);
  checkDigest(modelJsonFile, raw, files);
  try {
    modelJson = modelJsonSchema.parse(JSON.parse(raw.toString('utf8')));
  } catch (e) {
    throw new ModelLoadError(
      `${path.join(dir, 'model.json')} is not a TF.js layers model this service reads (float32, hashed layer optionally uint8-quantized): ${(e as Error).message}`,
    );
  }
  const group = modelJson.weightsManifest[0] as z.infer<typeof modelJsonSchema>['weightsManifest'][number];
  const buffers = await Promise.all(
    group.paths.map(async (p) => {
      const file = path.join(dir, path.basename(p));
      const bytes = await readWeightsFile(file);
      checkDigest(file, bytes, files);
      return bytes;
    }),
  );
  const bytes = Buffer.concat(buffers);
  const arrays = new Map<string, HashedWeights>();
  let offset = 0;
  for (const spec of group.weights) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const q = spec.quantization;
    const length = size * (q ? 1 : 4);
    if (offset + length > bytes.length) throw new ModelLoadError(`${dir}: weights.bin is shorter than model.json says`);
    // Copy into an aligned buffer of its own: the file's bytes may not start on a 4-byte boundary.
    const own = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + length);
    arrays.set(spec.name, q ? { table: new Uint8Array(own), scale: q.scale, offset: q.min } : floatWeights(new Float32Array(own)));
    offset += length;
  }
  const find = (suffix: string): HashedWeights => {
    for (const [name, arr] of arrays) if (name.endsWith(suffix)) return arr;
    throw new ModelLoadError(`${dir}: model.json has no weight named *${suffix}`);
  };
  const weights = find('hashed_weights/embeddings');
  if (weights.table.length !== dimension)
    throw new ModelLoadError(`${dir}: ${weights.table.length} hashed weights, the feature settings need ${dimension}`);
  return new LinearScorer(weights, dequantize(find('output/kernel'))[0] as number, dequantize(find('output/bias'))[0] as number);
}

async function readWeightsFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new ModelLoadError(`${file} is missing${path.basename(file) === 'model.json' ? '' : ' (model.json lists it)'}`);
    throw new ModelLoadError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** A few submissions of the shapes the service sees: scoring them compiles the hot paths before real traffic. */
const WARM_UP: readonly Record<string, string>[] = [
  { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello, could you send me a quote for the analytical engine? Thanks.' },
  { message: 'Cheap SEO backlinks!!! Visit http://example.invalid now to rank #1 on Google', email: 'promo@example.invalid' },
  { comment: 'great video, check out my channel' },
];

/**
 * The one way a version becomes servable, for the service (start-up and every switch) and `models promote` alike:
 * loaded, feature version checked, and run on a few submissions, so a model that loads but cannot score is refused
 * before it serves, and the first real request is not the one that pays for a cold start.
 */
export async function loadServable(modelsDir: string, version: string): Promise<LinearClassifier> {
  const classifier = await loadClassifier({ modelsDir, version });
  try {
    for (let i = 0; i < 20; i++) {
      for (const fields of WARM_UP) {
        const p = classifier.classify(fields).spamProbability;
        if (!Number.isFinite(p)) throw new Error(`spam probability ${p} (corrupt weights?)`);
      }
    }
  } catch (e) {
    throw new ModelLoadError(`model ${version} loaded but failed to score: ${(e as Error).message}`);
  }
  return classifier;
}
