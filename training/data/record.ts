import { z } from 'zod';

export const labelSchema = z.enum(['spam', 'legitimate']);
export type Label = z.infer<typeof labelSchema>;

/** Every source becomes this one record type before training or evaluation. */
export const recordSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  label: labelSchema,
  fields: z.record(z.string(), z.unknown()),
  /** Training weight; a moderator's relabel that contradicts the model counts more. */
  weight: z.number().positive().default(1),
});
export type LabelledRecord = z.infer<typeof recordSchema>;

/** A moderator's label as `npm run labels:export` writes it to data/labels/*.jsonl. */
export const exportedLabelSchema = z.object({
  submissionId: z.string().min(1),
  formId: z.string().min(1),
  label: labelSchema,
  fields: z.record(z.string(), z.unknown()),
  labelledAt: z.string(),
  moderatorId: z.string().optional(),
  modelStatus: labelSchema.optional(),
  modelConfidence: z.number().optional(),
});

/** A hand-written form submission in data/forms/*.jsonl. */
export const formRecordSchema = z.object({
  id: z.string().min(1),
  label: labelSchema,
  layout: z.string(),
  kind: z.string(),
  lang: z.string(),
  fields: z.record(z.string(), z.unknown()),
});
