import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadClassifier, listModelVersions } from '../../../core/classifier/load.ts';
import type { LinearClassifier } from '../../../core/classifier/linear-classifier.ts';
import { sigmoid } from '../../../core/classifier/sigmoid.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { FeatureExtractor } from '../../../core/features/index.ts';
import { initBackend } from '../../../training/model/backend.ts';
import { predictReference, type SparseExample } from '../../../training/model/linear-model.ts';
import { loadReferenceModel } from '../../../training/model/load-reference.ts';
import { loadDataDir } from '../../../training/data/loaders.ts';
import { splitRecords } from '../../../training/data/split.ts';

const modelsDir = path.join(repoRoot, 'models');
let classifier: LinearClassifier;
let examples: SparseExample[];
let reference: Float32Array;
let testFields: Array<Parameters<LinearClassifier['classify']>[0]>;

beforeAll(async () => {
  await initBackend('cpu');
  const versions = await listModelVersions(modelsDir);
  const version = versions[versions.length - 1] as string;
  classifier = await loadClassifier({ modelsDir });
  const { records } = loadDataDir(path.join(repoRoot, 'data'));
  const { test } = splitRecords(records, { seed: classifier.manifest.parameters.seed, validation: 0.15, test: 0.15 });
  const extractor = new FeatureExtractor(classifier.manifest.featureSettings);
  testFields = test.map((r) => r.fields);
  examples = test.map((r) => extractor.extractCopy(r.fields));
  const model = await loadReferenceModel(path.join(modelsDir, version));
  reference = predictReference(model, examples);
  model.dispose();
});

describe('fast inference path', () => {
  it('agrees with the TF.js model to 1e-5 on the whole test split', () => {
    expect(examples.length).toBeGreaterThan(500);
    let worst = 0;
    for (let i = 0; i < examples.length; i++) {
      const z = classifier.scorer.logit(examples[i] as SparseExample);
      const p = sigmoid(z);
      worst = Math.max(worst, Math.abs(p - (reference[i] as number)));
    }
    expect(worst).toBeLessThan(1e-5);
  });

  it("score() (the shadow model's path, no reasoning) decides exactly as classify() on the whole test split", () => {
    for (const fields of testFields) {
      const { status, spamProbability, confidence, modelVersion } = classifier.classify(fields);
      expect(classifier.score(fields)).toEqual({ status, spamProbability, confidence, modelVersion });
    }
  });
});
