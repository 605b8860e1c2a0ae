import type { Label, LabelHow, LabelRecord } from '../../../core/labels/records.ts';
import { parseLabel } from '../store/context.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { messageOf } from '../text/message.ts';

/** Labels the history reads at most (the newest): bounds one request whatever the account holds. */
export const HISTORY_SCAN = 2000;

export interface HistoryQuery {
  readonly moderator?: string | undefined;
  readonly label?: Label | undefined;
  readonly how?: LabelHow | 'unknown' | undefined;
  readonly form?: string | undefined;
  readonly offset: number;
  readonly limit: number;
}

export interface HistoryRow {
  readonly submissionId: string;
  readonly labelId: string | null;
  readonly formId: string;
  readonly label: Label;
  readonly moderatorId: string;
  readonly labelledAt: string;
  /** How it was labelled; null for a label given before that was recorded. */
  readonly how: LabelHow | null;
  readonly modelStatus: Label;
  readonly modelConfidence: number;
  readonly message: string;
  readonly email: string | null;
}

/** The account's current labels, newest first, filtered by moderator, label, way of labelling and form. */
export async function history(
  store: ReviewStore,
  accountId: string,
  q: HistoryQuery,
): Promise<{ rows: HistoryRow[]; total: number; scanCapped: boolean; moderators: string[] }> {
  const k = store.keys.forAccount(accountId);
  const ids = await store.redis.zrange(k.labelled(), '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, HISTORY_SCAN + 1);
  const scanCapped = ids.length > HISTORY_SCAN;
  const labels: LabelRecord[] = [];
  const wanted = ids.slice(0, HISTORY_SCAN);
  for (let i = 0; i < wanted.length; i += 500) {
    const raws = await store.redis.mget(...wanted.slice(i, i + 500).map((id) => k.label(id)));
    for (const raw of raws) {
      const l = parseLabel(raw ?? null);
      if (l !== undefined) labels.push(l);
    }
  }
  const moderators = [...new Set(labels.map((l) => l.moderatorId))].sort();
  const matching = labels.filter(
    (l) =>
      (q.moderator === undefined || l.moderatorId === q.moderator) &&
      (q.label === undefined || l.label === q.label) &&
      (q.form === undefined || l.formId === q.form) &&
      (q.how === undefined || (l.how ?? 'unknown') === q.how),
  );
  const rows = matching.slice(q.offset, q.offset + q.limit).map((l): HistoryRow => {
    const { message, email } = messageOf(l.fields);
    return {
      submissionId: l.submissionId,
      labelId: l.labelId ?? null,
      formId: l.formId,
      label: l.label,
      moderatorId: l.moderatorId,
      labelledAt: l.labelledAt,
      how: l.how ?? null,
      modelStatus: l.modelStatus,
      modelConfidence: l.modelConfidence,
      message,
      email: email ?? null,
    };
  });
  return { rows, total: matching.length, scanCapped, moderators };
}
