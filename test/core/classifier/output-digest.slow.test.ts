// Every labelled record in data/ through the extractor and the classifier: feature vectors, spam probability and
// reasoning hashed into one SHA-256, compared with the digest recorded in __fixtures__/output-digest.json. A
// speed-up must leave all of it byte for byte unchanged; a deliberate change (features, model, data) re-records it
// with `UPDATE_OUTPUT_DIGEST=1 npx vitest run test/core/classifier/output-digest.slow.test.ts` and says why in its commit.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LinearClassifier } from '../../../core/classifier/linear-classifier.ts';
import { loadClassifier } from '../../../core/classifier/load.ts';
import { FeatureExtractor } from '../../../core/features/index.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { loadDataDir } from '../../../training/data/loaders.ts';

const FIXTURE = path.join(import.meta.dirname, '__fixtures__', 'output-digest.json');

interface Recorded {
  readonly modelVersion: string;
  readonly records: number;
  readonly features: string;
  readonly verdicts: string;
}

async function digest(): Promise<Recorded> {
  const classifier = (await loadClassifier({ modelsDir: path.join(repoRoot, 'models') })) as LinearClassifier;
  const extractor = new FeatureExtractor(classifier.manifest.featureSettings);
  const { records } = loadDataDir(path.join(repoRoot, 'data'));
  const features = createHash('sha256');
  const verdicts = createHash('sha256');
  for (const r of records) {
    const f = extractor.extract(r.fields);
    for (const a of [f.indices, f.values, f.kinds, f.fields, f.starts, f.ends])
      features.update(new Uint8Array(a.buffer, a.byteOffset, f.count * a.BYTES_PER_ELEMENT));
    features.update(JSON.stringify({ texts: f.texts, roles: f.roles, structure: f.structure, facts: f.facts }));
    const v = classifier.classify(r.fields);
    // The probability as its exact bits (JSON keeps every digit of a double), the signals and the sentence.
    verdicts.update(JSON.stringify([v.status, v.spamProbability, v.confidence, v.signals, v.reasoning]));
  }
  return {
    modelVersion: classifier.modelVersion,
    records: records.length,
    features: features.digest('hex'),
    verdicts: verdicts.digest('hex'),
  };
}

describe('output on every labelled record', () => {
  it('features, probabilities and reasoning are byte for byte those recorded', async () => {
    const now = await digest();
    if (process.env.UPDATE_OUTPUT_DIGEST === '1') writeFileSync(FIXTURE, JSON.stringify(now, null, 2) + '\n');
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Recorded;
    // Model and record count first: a failure there is a changed model or data set, not a changed computation.
    expect({ modelVersion: now.modelVersion, records: now.records }).toEqual({
      modelVersion: recorded.modelVersion,
      records: recorded.records,
    });
    expect(now.features).toBe(recorded.features);
    expect(now.verdicts).toBe(recorded.verdicts);
  }, 120_000);
});
