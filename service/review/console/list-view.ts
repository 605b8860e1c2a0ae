import type { Label } from '../../../core/labels/records.ts';
import type { ListEntry, ListSort } from '../store/listing.ts';
import type { ReviewStore } from '../store/review-store.ts';

/** Search hits read at most to apply the Form and Verdict filters to a search: bounds one list request's reads. */
export const FILTERED_SEARCH_SCAN = 1000;

export interface ListViewQuery {
  readonly formId?: string | undefined;
  readonly status?: Label | undefined;
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly sort: ListSort;
  readonly search?: string | undefined;
  readonly offset: number;
  readonly limit: number;
}

export interface ListView {
  readonly entries: ListEntry[];
  readonly total: number;
  /** True when a filtered search stopped after FILTERED_SEARCH_SCAN hits: the total counts within those. */
  readonly scanCapped: boolean;
}

/**
 * The page of the console's list: pending items, or search hits. A search with a Form or Verdict filter reads the
 * newest (or oldest) FILTERED_SEARCH_SCAN hits and keeps those that match, since search postings are not kept per
 * form or verdict; the answer says when that bound was reached.
 */
export async function listView(store: ReviewStore, accountId: string, q: ListViewQuery): Promise<ListView> {
  const searching = q.search !== undefined && q.search.trim() !== '';
  const base = { from: q.from, to: q.to, sort: q.sort, search: q.search };
  if (!searching || (q.formId === undefined && q.status === undefined)) {
    const page = await store.listing.list(accountId, { ...base, formId: q.formId, status: q.status, offset: q.offset, limit: q.limit });
    return { entries: page.entries, total: page.total, scanCapped: false };
  }
  const hits = await store.listing.list(accountId, { ...base, offset: 0, limit: FILTERED_SEARCH_SCAN });
  const matching = hits.entries.filter(
    (e) => (q.formId === undefined || e.item.formId === q.formId) && (q.status === undefined || e.item.verdict.status === q.status),
  );
  return {
    entries: matching.slice(q.offset, q.offset + q.limit),
    total: matching.length,
    scanCapped: hits.total > FILTERED_SEARCH_SCAN,
  };
}

/** Pending counts by verdict and by form within the list's filters and date range: the line above the list. */
export async function pendingSummary(
  store: ReviewStore,
  accountId: string,
  q: { formId?: string | undefined; status?: Label | undefined; from?: number | undefined; to?: number | undefined },
): Promise<{ pending: number; byStatus: Record<Label, number>; byForm: Record<string, number> }> {
  const k = store.keys.forAccount(accountId);
  const forms = q.formId === undefined ? await store.items.forms(accountId) : [q.formId];
  const min = q.from === undefined ? '-inf' : String(q.from);
  const max = q.to === undefined ? '+inf' : String(q.to);
  const p = store.redis.pipeline();
  for (const status of ['spam', 'legitimate'] as const) p.zcount(k.pending({ formId: q.formId, status }), min, max);
  for (const formId of forms) p.zcount(k.pending({ formId, status: q.status }), min, max);
  const r = ((await p.exec()) ?? []).map(([err, n]) => {
    if (err) throw err;
    return Number(n);
  });
  const byForm: Record<string, number> = {};
  forms.forEach((formId, i) => (byForm[formId] = r[2 + i] ?? 0));
  const byStatus = { spam: r[0] ?? 0, legitimate: r[1] ?? 0 };
  // Within the filters: the verdict filter picks one of the two.
  const pending = q.status === undefined ? byStatus.spam + byStatus.legitimate : byStatus[q.status];
  return { pending, byStatus, byForm };
}
