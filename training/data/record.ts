import { z } from 'zod';
import { labelSchema, storedLabelLineSchema as exportedByService, storedWithdrawalLineSchema as withdrawalByService } from '../../core/labels/records.ts';

/** Every source becomes this one record type before training or evaluation. */
export const recordSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  label: labelSchema,
  fields: z.record(z.string(), z.unknown()),
  /** Training weight; a moderator's relabel that contradicts the model counts more. */
  weight: z.number().positive().default(1),
  /** A moderator label's time: of several labels for one submission, the newest is trained on. */
  labelledAt: z.string().optional(),
  /** A moderator label's own id (lines exported before labels had ids have none): what a withdrawal names. */
  labelId: z.string().optional(),
  /**
   * The account whose moderators gave a label: it trains that account's correction and enters the global model only
   * as account-labels.ts allows. Absent for public and hand-written records and for label lines exported before
   * labels named their account (those train the global model alone).
   */
  accountId: z.string().optional(),
});
export type LabelledRecord = z.infer<typeof recordSchema>;

/**
 * A moderator's label as `npm run labels:export` writes it to data/labels/*.jsonl (the service's schema is the one
 * definition of the line); the account is missing from lines exported before labels named it, and the model's
 * verdict and the moderator may be missing from hand-made label files (submissionId, formId, label, fields and
 * labelledAt suffice).
 */
export const exportedLabelSchema = exportedByService.partial({ moderatorId: true, modelStatus: true, modelConfidence: true }).extend({
  // Hand-made files may write local time with an offset; labels are compared with Date.parse, which reads both.
  labelledAt: z.iso.datetime({ offset: true }),
});

/**
 * A withdrawal line of data/labels/*.jsonl: a moderator undid an exported label, so the label line with that labelId
 * is not trained on (older lines, without a labelId, name the label by its submission and labelledAt). Older lines
 * have no accountId; hand-made files may give local time with an offset and leave out withdrawnAt.
 */
export const exportedWithdrawalSchema = withdrawalByService.extend({
  withdrawn: z.iso.datetime({ offset: true }),
  withdrawnAt: z.iso.datetime({ offset: true }).optional(),
});

/** A common record as a JSON Lines file holds it: its folder (or, for `npm run evaluate`, its file) names the source. */
export const recordLineSchema = recordSchema.partial({ source: true });

/** A hand-written form submission in data/forms/*.jsonl. */
export const formRecordSchema = z.object({
  id: z.string().min(1),
  label: labelSchema,
  layout: z.string(),
  kind: z.string(),
  lang: z.string(),
  fields: z.record(z.string(), z.unknown()),
});
