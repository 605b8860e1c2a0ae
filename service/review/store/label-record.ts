import { randomUUID } from 'node:crypto';
import type { Label, LabelHow, LabelRecord } from '../../../core/labels/records.ts';
import type { ReviewJob } from '../intake/job-schema.ts';

/** The label file's record of one moderator label on a stored item: a single label and a bulk one write the same. */
export function labelRecordOf(
  item: ReviewJob,
  accountId: string,
  label: Label,
  moderatorId: string,
  labelledAt: string,
  how: LabelHow,
): LabelRecord {
  return {
    labelId: randomUUID(),
    submissionId: item.submissionId,
    accountId,
    formId: item.formId,
    label,
    fields: item.fields,
    truncated: item.truncated,
    receivedAt: item.receivedAt,
    labelledAt,
    moderatorId,
    modelStatus: item.verdict.status,
    modelConfidence: item.verdict.confidence,
    modelVersion: item.verdict.modelVersion,
    how,
  };
}
