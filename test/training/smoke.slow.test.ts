import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_NB_SCALING, MIN_PER_CLASS, runTraining } from '../../training/pipeline.ts';
import { loadClassifier } from '../../core/classifier/load.ts';
import { manifestSchema } from '../../core/classifier/manifest.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { KEY } from '../support/tenants.ts';
import { ORIGIN, testApp } from '../service/helpers.ts';
import { FeatureExtractor } from '../../core/features/index.ts';
import { initBackend } from '../../training/model/backend.ts';
import { predictReference } from '../../training/model/linear-model.ts';
import { loadReferenceModel } from '../../training/model/load-reference.ts';
import { DataError, loadDataDir } from '../../training/data/loaders.ts';
import { ModelExistsError } from '../../training/model/export.ts';

const out = mkdtempSync(path.join(tmpdir(), 'formguard-train-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const options = {
  dataDir: path.join(repoRoot, 'test/fixtures/training'),
  outDir: out,
  seed: 3,
  epochs: 4,
  batchSize: 16,
  learningRate: 0.05,
  l2: 1e-7,
  targetFpr: 0.05,
  sourceWeights: {},
  log: () => {},
};

describe('npm run train on a small fixture', () => {
  it('exports a versioned model that the service loads and answers with', async () => {
    const { dir, manifest } = await runTraining({ ...options, now: new Date('2026-01-02T03:04:05Z') });
    expect(path.basename(dir)).toBe('20260102-030405');
    for (const f of ['model.json', 'weights.bin', 'manifest.json', 'report.md']) expect(existsSync(path.join(dir, f))).toBe(true);
    // The manifest on disk round-trips through its schema unchanged.
    const onDisk = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifestSchema.parse(onDisk)).toEqual(manifest);
    // With the digest of each file it is served from, as written.
    for (const f of ['model.json', 'weights.bin']) {
      const bytes = readFileSync(path.join(dir, f));
      expect(manifest.modelFiles?.[f]).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
    }
    expect(manifest.parameters.nbScaling).toEqual(DEFAULT_NB_SCALING);
    // Threshold and calibration come from out-of-fold scores: every train and validation record is scored once.
    const pooled = Object.values(manifest.data.splits).reduce((n, c) => n + c.train + c.validation, 0);
    expect(manifest.metrics.validation.overall.n).toBe(pooled);
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('Baseline');
    // The fixture's labels file has three lines for two submissions (one relabelled): two used of three loaded.
    expect(manifest.data.labels).toMatchObject({ records: 2, loaded: 3 });
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('Moderator labels: 2 used of 3 (the newest line per submission');

    const classifier = await loadClassifier({ modelsDir: out });
    expect(classifier.modelVersion).toBe('20260102-030405');
    // The hashed layer ships as one byte per bucket, and TF.js reads the file to the weights the service uses.
    expect(readFileSync(path.join(dir, 'weights.bin')).length).toBe(2 ** manifest.featureSettings.hashBits + 8);
    await initBackend('cpu');
    const reference = await loadReferenceModel(dir);
    const extractor = new FeatureExtractor(manifest.featureSettings);
    const examples = loadDataDir(options.dataDir).records.map((r) => extractor.extractCopy(r.fields));
    const expected = predictReference(reference, examples);
    reference.dispose();
    examples.forEach((e, i) => expect(sigmoid(classifier.scorer.logit(e))).toBeCloseTo(expected[i] as number, 5));
    const app = await testApp({ classifier });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: ORIGIN,
        payload: {
          apiKey: KEY,
          formId: 'contact',
          payload: { name: 'Tom', email: 'tom@gmail.com', message: 'Do you deliver to Leeds on Saturdays?' },
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ modelVersion: '20260102-030405', formId: 'contact' });
      expect(['spam', 'legitimate']).toContain(res.json().status);
    } finally {
      await app.close();
    }
  });

  it('gives the same metrics for the same data and seed', async () => {
    const a = await runTraining({ ...options, now: new Date('2026-01-02T03:04:06Z') });
    const b = await runTraining({ ...options, now: new Date('2026-01-02T03:04:07Z') });
    expect(b.manifest.metrics).toEqual(a.manifest.metrics);
    expect(b.manifest.threshold).toBe(a.manifest.threshold);
    expect(readFileSync(path.join(b.dir, 'weights.bin')).equals(readFileSync(path.join(a.dir, 'weights.bin')))).toBe(true);
  });
});

describe('the export', () => {
  it('leaves only the finished version folder, and never writes over a model of the same version', async () => {
    const models = mkdtempSync(path.join(tmpdir(), 'formguard-export-'));
    try {
      const now = new Date('2026-01-02T03:04:09Z');
      // A folder a crashed export of this version left behind: the service never lists it, the next export clears it.
      mkdirSync(path.join(models, '.20260102-030409.partial'));
      writeFileSync(path.join(models, '.20260102-030409.partial', 'weights.bin'), 'torn');
      const { dir } = await runTraining({ ...options, outDir: models, now });
      expect(readdirSync(models)).toEqual(['20260102-030409']);
      const weights = readFileSync(path.join(dir, 'weights.bin'));
      await expect(runTraining({ ...options, outDir: models, seed: 4, now })).rejects.toBeInstanceOf(ModelExistsError);
      expect(readFileSync(path.join(dir, 'weights.bin')).equals(weights)).toBe(true);
      expect(readdirSync(models)).toEqual(['20260102-030409']);
    } finally {
      rmSync(models, { recursive: true, force: true });
    }
  });
});

describe('a loose false-positive target', () => {
  it('stops the threshold at 0.5 and says so in the report', async () => {
    // Loose for this 80-record fixture: more of its legitimate records than this score under 0.5 out of fold.
    const { dir, manifest } = await runTraining({ ...options, targetFpr: 0.45, now: new Date('2026-01-02T03:04:08Z') });
    expect(manifest.threshold).toBe(0.5);
    expect(manifest.metrics.validation.overall.fpr).toBeLessThan(0.45);
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('The threshold sits at its floor of 0.5');
  });
});

describe('npm run train on data of one class', () => {
  it('refuses to export a model instead of one that calls everything spam with a perfect score', async () => {
    // The fixture's spam forms alone: a model of them would flag every submission, at F1 1.0 on its own test split.
    const data = mkdtempSync(path.join(tmpdir(), 'formguard-one-class-'));
    const models = path.join(data, 'models');
    try {
      const spam = readFileSync(path.join(repoRoot, 'test/fixtures/training/forms/mini.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"label":"spam"'));
      expect(spam.length).toBeGreaterThan(10);
      mkdirSync(path.join(data, 'forms'));
      writeFileSync(path.join(data, 'forms/spam.jsonl'), spam.join('\n') + '\n');
      const run = runTraining({ ...options, dataDir: data, outDir: models });
      await expect(run).rejects.toBeInstanceOf(DataError);
      await expect(run).rejects.toThrow(
        new RegExp(
          `at least ${MIN_PER_CLASS} spam and ${MIN_PER_CLASS} legitimate .*; this data has \\d+ spam and 0 legitimate there\\. No model was exported\\.`,
        ),
      );
      expect(existsSync(models)).toBe(false);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
