import { z } from 'zod';

export const labelSchema = z.enum(['spam', 'legitimate']);
export type Label = z.infer<typeof labelSchema>;
export const labelHowSchema = z.enum(['single', 'bulk', 'reported']);
export type LabelHow = z.infer<typeof labelHowSchema>;

/** One moderator decision, kept in Redis until exported (and at most until the item's retention ends). */
export const labelRecordSchema = z.object({
  /**
   * This label's own id (a random UUID), unique among every label of every submission: what a withdrawal names, and
   * what the export acknowledges. Two labels of one submission can share a labelledAt (the same millisecond, on two
   * instances); they never share an id. Absent from records labelled before labels had ids.
   */
  labelId: z.string().uuid().optional(),
  submissionId: z.string().uuid(),
  accountId: z.string().min(1),
  formId: z.string().min(1),
  label: labelSchema,
  fields: z.record(z.string(), z.unknown()),
  truncated: z.boolean(),
  receivedAt: z.string().datetime(),
  labelledAt: z.string().datetime(),
  moderatorId: z.string().min(1),
  /** The model's verdict at the time, so training can tell a contradiction from a confirmation. */
  modelStatus: labelSchema,
  modelConfidence: z.number().min(0).max(1),
  modelVersion: z.string(),
  /**
   * How the item came to be labelled: one by one (`single`), in a bulk action or confirm-all (`bulk`), or as a miss
   * the model let through that a moderator reported (`reported`). Absent from labels given before this was recorded.
   */
  how: labelHowSchema.optional(),
});
export type LabelRecord = z.infer<typeof labelRecordSchema>;

/**
 * One label line of data/labels/<date>.jsonl as labels:export writes it: what the training loader reads, and what
 * `labels:erase` finds an account's lines by (`accountId`).
 */
export const exportedLabelSchema = labelRecordSchema.pick({
  submissionId: true,
  labelId: true,
  accountId: true,
  formId: true,
  label: true,
  fields: true,
  labelledAt: true,
  moderatorId: true,
  modelStatus: true,
  modelConfidence: true,
  how: true,
});
export type ExportedLabel = z.infer<typeof exportedLabelSchema>;

/** Any label line already in the files: lines exported before labels named their account have no `accountId`. */
export const storedLabelLineSchema = exportedLabelSchema.partial({ accountId: true });
export type StoredLabelLine = z.infer<typeof storedLabelLineSchema>;

/**
 * The other kind of line in data/labels/<date>.jsonl: a label taken back by an undo after it was exported. The
 * training loader drops the label line with that labelId (and a line without a labelId of that submission and
 * labelledAt, written before labels had ids) before it keeps the newest. A withdrawal without a labelId (written
 * before labels had ids) drops every label line of that submission with that labelledAt.
 */
export const labelWithdrawalSchema = z.object({
  submissionId: z.string().uuid(),
  /** The id of the undone label; absent when that label had none. */
  labelId: labelRecordSchema.shape.labelId,
  /** The account of the submission, as in its label line. */
  accountId: z.string().min(1),
  /** The labelledAt of the undone label (which line of this submission is withdrawn, where it has no labelId). */
  withdrawn: z.string().datetime(),
  /** When the undo happened. */
  withdrawnAt: z.string().datetime(),
});
export type LabelWithdrawal = z.infer<typeof labelWithdrawalSchema>;

/** Any withdrawal line already in the files: older ones have no `accountId`. */
export const storedWithdrawalLineSchema = labelWithdrawalSchema.partial({ accountId: true });
export type StoredWithdrawalLine = z.infer<typeof storedWithdrawalLineSchema>;

/**
 * What an erasure (`labels:erase`) reads of any line of the labels files, label or withdrawal, of any age, hand-made
 * ones included: whose submission it is, and where the line says so, its account and form. `withdrawn` tells a
 * withdrawal from a label.
 */
export const erasableLineSchema = storedLabelLineSchema.pick({ submissionId: true, accountId: true }).extend({
  formId: storedLabelLineSchema.shape.formId.optional(),
  withdrawn: z.unknown().optional(),
});
export type ErasableLine = z.infer<typeof erasableLineSchema>;

/** A console session, stored in Redis under the hash of its random id. */
export const sessionRecordSchema = z.object({
  accountId: z.string().min(1),
  moderatorId: z.string().min(1),
  /** The SHA-256 hex of the sign-in token; a record without it (older) is no session, so it signs in again. */
  tokenSha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string().datetime(),
});
export type SessionRecord = z.infer<typeof sessionRecordSchema>;
