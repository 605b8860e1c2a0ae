import { z } from 'zod';
import { featureSettingsSchema } from '../features/settings.ts';

const binaryMetricsSchema = z.object({
  n: z.number().int().nonnegative(),
  spam: z.number().int().nonnegative(),
  legitimate: z.number().int().nonnegative(),
  tp: z.number().int().nonnegative(),
  fp: z.number().int().nonnegative(),
  tn: z.number().int().nonnegative(),
  fn: z.number().int().nonnegative(),
  precision: z.number(),
  recall: z.number(),
  f1: z.number(),
  fpr: z.number(),
  accuracy: z.number(),
  rocAuc: z.number().nullable(),
});
export type BinaryMetrics = z.infer<typeof binaryMetricsSchema>;

const evaluationSchema = z.object({
  overall: binaryMetricsSchema,
  bySource: z.record(z.string(), binaryMetricsSchema),
  ece: z.number(),
});
export type Evaluation = z.infer<typeof evaluationSchema>;

/** A version folder's name: its creation time (UTC), optionally with a suffix. */
export const MODEL_VERSION_PATTERN = /^\d{8}-\d{6}(-[a-z0-9-]+)?$/;

/** models/<version>/manifest.json: everything needed to serve, trust and reproduce a model. */
export const manifestSchema = z.object({
  version: z.string().regex(MODEL_VERSION_PATTERN),
  created: z.string().datetime(),
  kind: z.literal('hashed-linear'),
  featureVersion: z.string().min(1),
  featureSettings: featureSettingsSchema,
  /** A submission is spam when its calibrated spam probability is at least this. */
  threshold: z.number().min(0).max(1),
  targetFpr: z.number().min(0).max(1),
  calibration: z.object({ method: z.literal('platt'), a: z.number(), b: z.number() }),
  data: z.object({
    files: z.array(z.object({ path: z.string(), sha256: z.string().length(64), records: z.number().int() })),
    splits: z.record(z.string(), z.object({ train: z.number().int(), validation: z.number().int(), test: z.number().int() })),
    /**
     * How the split was drawn; absent in models exported before it was recorded, which used the seeded shuffle
     * ('seeded-shuffle') with parameters.seed and 15% / 15%.
     */
    split: z
      .object({
        rule: z.enum(['sha256-text', 'seeded-shuffle']),
        seed: z.number().int(),
        validation: z.number().min(0).max(1),
        test: z.number().min(0).max(1),
      })
      .optional(),
    /**
     * The file in the model's folder listing every text it learned from (64-bit hashes of the normalised text, one a
     * line, sorted): what a comparison leaves out. Absent in older models (their training set is rebuilt from the
     * data files the manifest lists, when those are unchanged).
     */
    trainedOn: z
      .object({ file: z.literal('trained-on.txt'), texts: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })
      .optional(),
    /** The held-out sets (training/holdout/) kept out of this run: how many texts they hold, how many data records matched one. */
    heldOut: z
      .object({ files: z.number().int().nonnegative(), texts: z.number().int().nonnegative(), excluded: z.number().int().nonnegative() })
      .optional(),
    duplicatesDropped: z.number().int(),
    conflictingLabels: z.number().int(),
    labels: z.object({
      records: z.number().int(),
      loaded: z.number().int().optional(),
      withdrawn: z.number().int().optional(),
      contradicting: z.number().int(),
      weights: z.object({ contradicts: z.number(), confirms: z.number() }),
      /** Labels that name their account: how many, and how many of them the global model was let to learn from. */
      accounts: z
        .object({
          accounts: z.number().int().nonnegative(),
          labels: z.number().int().nonnegative(),
          agreed: z.number().int().nonnegative(),
          heldBack: z.number().int().nonnegative(),
          disputed: z.number().int().nonnegative(),
          minAccountsForGlobal: z.number().int().positive(),
        })
        .optional(),
    }),
  }),
  /** validation: out-of-fold scores over train + validation (threshold and calibration were fitted on them). */
  metrics: z.object({ validation: evaluationSchema, test: evaluationSchema }),
  baseline: z.object({ description: z.string(), threshold: z.number(), test: evaluationSchema }),
  parameters: z.object({
    seed: z.number().int(),
    epochs: z.number().int(),
    batchSize: z.number().int(),
    learningRate: z.number(),
    l2: z.number(),
    sourceWeights: z.record(z.string(), z.number()),
    /** Naive-Bayes feature scaling used in training (folded into the shipped weights); absent in older models. */
    nbScaling: z.object({ alpha: z.number().positive(), mix: z.number().min(0).max(1) }).optional(),
    backend: z.string(),
  }),
  /** How weights.bin stores the hashed layer; absent in exports from before quantization (float32). */
  quantization: z.object({ hashedWeights: z.literal('uint8'), scale: z.number().positive() }).optional(),
  /**
   * Per-account corrections (accounts.json) and how they were made; absent in models trained before them, and when
   * no account had enough labels.
   */
  accountCorrections: z
    .object({
      file: z.literal('accounts.json'),
      accounts: z.number().int().nonnegative(),
      /** An account gets a correction from this many labels on. */
      minLabels: z.number().int().positive(),
      l2: z.number().nonnegative(),
      biasL2: z.number().nonnegative(),
      iterations: z.number().int().positive(),
      /** Smaller weights were left out of the file (absent: none were). */
      minWeight: z.number().nonnegative().optional(),
      /** How each account's own threshold was chosen from its labels (absent or `none`: the model's for every account). */
      threshold: z.enum(['none', 'flags', 'mean', 'soft']).optional(),
    })
    .optional(),
  trainingSeconds: z.number(),
  /**
   * sha256 and size of every file the model is served from (model.json and the weight files it lists), so a file
   * changed after export (a bad copy, a disk error, an edit) is refused at load instead of scoring with it. Absent
   * in exports from before digests: such a model loads, with a warning that it cannot be checked.
   */
  modelFiles: z
    .record(z.string().regex(/^[^/\\]+$/), z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().nonnegative() }))
    .optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;
