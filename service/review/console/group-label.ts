import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { LabelConflictError } from '../store/labels.ts';
import type { ReviewStore } from '../store/review-store.ts';

/**
 * Labels a pending item that leads a group of similar submissions, with every member, as one bulk action (one entry
 * of the moderator's undo list, so one undo takes the whole group back). Undefined when the item leads no group or is
 * not pending (it is labelled alone then). LabelConflictError when someone labelled the leader meanwhile.
 */
export async function labelGroup(
  store: ReviewStore,
  accountId: string,
  submissionId: string,
  label: Label,
  moderatorId: string,
): Promise<{ record: LabelRecord; labelled: number } | undefined> {
  const k = store.keys.forAccount(accountId);
  const [[summary], pending] = await Promise.all([store.near.summaries(k, [submissionId]), store.redis.zscore(k.pending(), submissionId)]);
  if (summary === undefined || summary.size <= 1 || pending === null) return undefined;
  const ids = await store.near.expand(accountId, [submissionId]);
  const result = await store.bulk.label(accountId, ids, label, moderatorId);
  const record = await store.labels.getLabel(accountId, submissionId);
  if (record === undefined || record.moderatorId !== moderatorId || record.labelledAt !== result.labelledAt)
    throw new LabelConflictError(record);
  return { record, labelled: result.labelled };
}
