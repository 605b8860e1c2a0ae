import type { ReviewStore } from './review-store.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

export type UndoLabelResult = { readonly kind: 'undone' | 'restored' | 'gone' } | { readonly kind: 'changed'; readonly by: string };

/**
 * Takes back one item's label from the history, whoever gave it, while it is still the label the moderator saw
 * (`seen`: its labelId, or its labelledAt where it has none): 'undone' (back to pending), 'restored' (the label it
 * replaced is back), 'changed' (it has another label now: nothing changed) or 'gone' (no label, or past retention).
 */
export async function undoLabel(store: ReviewStore, accountId: string, submissionId: string, seen: string): Promise<UndoLabelResult> {
  const k = store.keys.forAccount(accountId);
  const entry = await store.items.get(accountId, submissionId);
  if (entry === undefined || !entry.queued) return { kind: 'gone' };
  const item = entry.item;
  const [code, by] = (await evalScript(
    store.redis,
    SCRIPTS.undoLabel,
    14,
    k.label(submissionId),
    k.labelled(),
    k.unexported(),
    ...k.pendingAll(item.formId, item.verdict.status),
    k.item(submissionId),
    k.labelHistory(submissionId),
    k.withdrawals(),
    ...k.pendingConfidenceAll(item.formId, item.verdict.status),
    submissionId,
    Date.parse(item.receivedAt),
    seen,
    store.expiresAt(item.receivedAt),
    Date.now(),
    item.verdict.confidence,
    (await store.near.grouped(k, [submissionId]))[0] === true ? '1' : '0',
  )) as [number, string?];
  if (code === 1) return { kind: 'undone' };
  if (code === 2) return { kind: 'restored' };
  if (code === -1) return { kind: 'changed', by: by ?? '' };
  return { kind: 'gone' };
}
