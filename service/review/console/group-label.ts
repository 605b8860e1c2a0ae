import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { LabelConflictError } from '../store/labels.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { undoLabel, type UndoLabelResult } from '../store/undo-label.ts';

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

/** Members undone at a time: each is one short script call. */
const UNDO_STEP = 50;

/**
 * Takes back, from the history, the label of a group's leader and, when that label was the group's one action (a
 * bulk label), the same action's labels of its members: the group comes back as one row, as a `u` would bring it.
 * A member labelled otherwise since (by anyone) keeps its label. The leader's outcome as undoLabel says it, and how
 * many members went back with it.
 */
export async function undoLabelWithGroup(
  store: ReviewStore,
  accountId: string,
  submissionId: string,
  seen: string,
): Promise<UndoLabelResult & { members: number }> {
  const before = await store.labels.getLabel(accountId, submissionId);
  const result = await undoLabel(store, accountId, submissionId, seen);
  if (result.kind !== 'undone' || before === undefined || before.how !== 'bulk') return { ...result, members: 0 };
  const members = (await store.near.expand(accountId, [submissionId])).filter((id) => id !== submissionId);
  let undone = 0;
  for (let i = 0; i < members.length; i += UNDO_STEP) {
    const step = members.slice(i, i + UNDO_STEP);
    const labels = await Promise.all(step.map((id) => store.labels.getLabel(accountId, id)));
    const outcomes = await Promise.all(
      step.map((id, j) => {
        const l = labels[j];
        const same = l !== undefined && l.moderatorId === before.moderatorId && l.labelledAt === before.labelledAt;
        return same ? undoLabel(store, accountId, id, l.labelId ?? l.labelledAt) : undefined;
      }),
    );
    undone += outcomes.filter((o) => o?.kind === 'undone').length;
  }
  return { ...result, members: undone };
}
