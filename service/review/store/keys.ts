import type { Label } from '../../../core/labels/records.ts';

/**
 * Redis key layout of the review store. Every key of one account carries the account id as a hash tag
 * (`{acme}`), so an account's keys live in one Cluster slot and its Lua scripts stay single-slot; a
 * moderator's session only ever builds keys for its own account, which is what keeps accounts apart.
 */
export class ReviewKeys {
  constructor(readonly prefix: string) {}

  /** Every account that has had review items: what the exporter and the retention sweep walk. */
  accounts(): string {
    return `${this.prefix}:review:accounts`;
  }

  session(idHash: string): string {
    return `${this.prefix}:review:session:${idHash}`;
  }

  forAccount(accountId: string): AccountKeys {
    return new AccountKeys(`${this.prefix}:review:{${accountId}}`);
  }
}

export class AccountKeys {
  constructor(readonly base: string) {}

  /** How many flagged submissions were shed at the account's full queue (kept for look-up, not stored): one counter. */
  shed(): string {
    return `${this.base}:shed`;
  }

  item(submissionId: string): string {
    return `${this.base}:item:${submissionId}`;
  }

  /**
   * The verdicts (no fields) of submissions that were not queued, for support look-ups: a hash submissionId → verdict
   * JSON, and beside it the same ids by receivedAt (ms), which bounds it: the newest REVIEW_LOOKUP_MAX, within retention.
   */
  seen(): string {
    return `${this.base}:seen`;
  }

  seenAt(): string {
    return `${this.base}:seen-at`;
  }

  /** The submissionIds merged into this (leader) item: identical submissions within the campaign window. */
  campaign(submissionId: string): string {
    return `${this.base}:campaign:${submissionId}`;
  }

  /** How many more submissions a campaign merged past the ids its set keeps (MAX_CAMPAIGN_IDS). */
  campaignMore(submissionId: string): string {
    return `${this.base}:campaign:${submissionId}:more`;
  }

  /** The pending item that identical submissions (by fingerprint) are merged into, for the campaign window. */
  fingerprint(hash: string): string {
    return `${this.base}:fingerprint:${hash}`;
  }

  label(submissionId: string): string {
    return `${this.base}:label:${submissionId}`;
  }

  /** The labels this item's relabels replaced, newest first, so an undo can put the one before back. */
  labelHistory(submissionId: string): string {
    return `${this.base}:label-history:${submissionId}`;
  }

  /** Pending items by receivedAt (ms): all, by form, by model verdict, by both. */
  pending(filter: { formId?: string | undefined; status?: Label | undefined } = {}): string {
    let key = `${this.base}:pending`;
    if (filter.formId !== undefined) key += `:form:${encodeURIComponent(filter.formId)}`;
    if (filter.status !== undefined) key += `:status:${filter.status}`;
    return key;
  }

  /** The four pending indexes one item belongs to. */
  pendingAll(formId: string, status: Label): [string, string, string, string] {
    return [this.pending(), this.pending({ formId }), this.pending({ status }), this.pending({ formId, status })];
  }

  /** Pending items by the model's confidence (0..1): all, by form, by verdict, by both; for sorting and bulk confirms. */
  pendingByConfidence(filter: { formId?: string | undefined; status?: Label | undefined } = {}): string {
    return this.pending(filter).replace(`${this.base}:pending`, `${this.base}:pending-conf`);
  }

  /** The four confidence indexes one pending item belongs to (the same filters as pendingAll, in its order). */
  pendingConfidenceAll(formId: string, status: Label): [string, string, string, string] {
    return [
      this.pendingByConfidence(),
      this.pendingByConfidence({ formId }),
      this.pendingByConfidence({ status }),
      this.pendingByConfidence({ formId, status }),
    ];
  }

  /**
   * What search scans: one hash field per searchable submission (a queued item, or a submission whose fields are kept),
   * submissionId → `<i|k><receivedAt ms>:<fingerprint>| word word … ` (store/search-line.ts). Its size is bounded by the
   * caps on what it indexes (pending, labelled, kept), so a search costs what those settings allow, whatever the traffic.
   */
  search(): string {
    return `${this.base}:search`;
  }

  /**
   * The fields of submissions that were not queued, so that a miss can be labelled: a hash submissionId → the
   * submission (JSON, fields cut like a queued item's), and the same ids by receivedAt (ms), which bounds it: the newest
   * REVIEW_KEEP_FIELDS_MAX of the account, within REVIEW_KEEP_FIELDS_DAYS.
   */
  kept(): string {
    return `${this.base}:kept`;
  }

  keptAt(): string {
    return `${this.base}:kept-at`;
  }

  /** The submissionIds one bulk label changed, so an undo takes them back as one action. */
  batch(batchId: string): string {
    return `${this.base}:batch:${batchId}`;
  }

  /** Traffic counts of one UTC day (`YYYY-MM-DD`): a hash of `<formId> <event>` → count; no personal data. */
  traffic(day: string): string {
    return `${this.base}:traffic:${day}`;
  }

  /** A scratch key for one read (search intersections), in the account's slot; it expires within seconds. */
  scratch(name: string): string {
    return `${this.base}:tmp:${name}`;
  }

  /** Labelled items by labelledAt (ms). */
  labelled(): string {
    return `${this.base}:labelled`;
  }

  /** Labels not yet written to data/labels, by labelledAt (ms). */
  unexported(): string {
    return `${this.base}:unexported`;
  }

  /**
   * Labels taken back by an undo and not yet written to data/labels as withdrawals, by the time of the undo (ms):
   * members are JSON `{submissionId, labelId, withdrawn: labelledAt, exported}`. Not swept: they hold no personal data, and
   * dropping one would leave its undone label in the files for good.
   */
  withdrawals(): string {
    return `${this.base}:withdrawals`;
  }

  /** Form ids that have had items (for the console's filter). */
  forms(): string {
    return `${this.base}:forms`;
  }

  /** A moderator's recent labels (`<submissionId> <labelledAt>`, one per label), newest first, for undo. */
  undo(moderatorId: string): string {
    return `${this.base}:undo:${encodeURIComponent(moderatorId)}`;
  }
}
