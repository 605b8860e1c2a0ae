import { randomUUID } from 'node:crypto';
import type { Label } from '../../../core/labels/records.ts';
import type { ReviewJob } from '../intake/job-schema.ts';
import { DAY_MS, type StoreContext } from './context.ts';
import { labelRecordOf } from './label-record.ts';
import { NearGroups } from './near-groups.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

/** Items per script call: each stays short, so other clients are not held up by a large action. */
const CHUNK = 250;
/** The most items one bulk action labels: a confirm-all over more labels this many, and says how many are left. */
export const MAX_BULK_ITEMS = 5_000;
/** What an undo-list entry of a bulk action starts with (a single label's entry starts with its submissionId). */
export const BATCH_ENTRY = 'batch:';

export interface BulkResult {
  readonly labelled: number;
  /** Asked for, but labelled meanwhile by someone, expired, or unknown to this account: left as they were. */
  readonly skipped: number;
  readonly labelledAt: string;
}

export interface ConfirmFilter {
  readonly formId?: string | undefined;
  /** The lowest confidence confirmed, 0..1. */
  readonly min: number;
}

/** Bulk labels of pending items, each item atomic, the action one entry of the moderator's undo list. */
export class BulkLabels {
  constructor(
    private readonly ctx: StoreContext,
    private readonly near: NearGroups = new NearGroups(ctx),
  ) {}

  /** How many pending `spam` verdicts at or above `min` confidence (of the form, when given) a confirm-all takes. */
  async confirmPreview(accountId: string, f: ConfirmFilter): Promise<{ matching: number; takes: number }> {
    const k = this.ctx.keys.forAccount(accountId);
    const matching = await this.ctx.redis.zcount(k.pendingByConfidence({ formId: f.formId, status: 'spam' }), String(f.min), '+inf');
    return { matching, takes: Math.min(matching, MAX_BULK_ITEMS) };
  }

  /** Labels `spam` the pending spam verdicts of the preview, most confident first, up to MAX_BULK_ITEMS. */
  async confirm(accountId: string, f: ConfirmFilter, moderatorId: string): Promise<BulkResult> {
    const k = this.ctx.keys.forAccount(accountId);
    const ids = await this.ctx.redis.zrange(
      k.pendingByConfidence({ formId: f.formId, status: 'spam' }),
      '+inf',
      String(f.min),
      'BYSCORE',
      'REV',
      'LIMIT',
      0,
      MAX_BULK_ITEMS,
    );
    return this.label(accountId, ids, 'spam', moderatorId);
  }

  /** Labels the given pending items; items labelled meanwhile are skipped, never overwritten. */
  async label(accountId: string, submissionIds: readonly string[], label: Label, moderatorId: string): Promise<BulkResult> {
    const k = this.ctx.keys.forAccount(accountId);
    const ids = [...new Set(submissionIds)].slice(0, MAX_BULK_ITEMS);
    const labelledAtMs = this.ctx.now();
    const labelledAt = new Date(labelledAtMs).toISOString();
    const batchId = randomUUID();
    let entry = `${BATCH_ENTRY}${batchId} ${labelledAt}`;
    let labelled = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const items = (await this.ctx.items(k, chunk)).filter((x): x is ReviewJob => x !== undefined);
      if (items.length === 0) continue;
      const keys: string[] = [k.labelled(), k.unexported(), k.undo(moderatorId), k.batch(batchId)];
      const args: (string | number)[] = [labelledAtMs, DAY_MS, entry];
      for (const item of items) {
        const record = labelRecordOf(item, accountId, label, moderatorId, labelledAt, 'bulk');
        keys.push(
          k.item(item.submissionId),
          k.label(item.submissionId),
          ...k.pendingAll(item.formId, item.verdict.status),
          ...k.pendingConfidenceAll(item.formId, item.verdict.status),
          k.labelHistory(item.submissionId),
        );
        args.push(JSON.stringify(record), this.ctx.expiresAt(item.receivedAt), item.submissionId);
      }
      const done = (await evalScript(this.ctx.redis, SCRIPTS.bulkLabel, keys.length, ...keys, ...args)) as string[];
      labelled += done.length;
      // The undo entry is pushed once, by the first call that labelled anything.
      if (done.length > 0) entry = '';
    }
    return { labelled, skipped: ids.length - labelled, labelledAt };
  }

  /**
   * Takes back a bulk label named by the undo entry at the head of the moderator's list, as one action. Undefined when
   * another undo or label of this moderator took the head meanwhile.
   */
  async undo(accountId: string, moderatorId: string, entry: string): Promise<{ undone: number; relabelled: number } | undefined> {
    const k = this.ctx.keys.forAccount(accountId);
    const space = entry.indexOf(' ');
    const batchId = entry.slice(BATCH_ENTRY.length, space);
    const labelledAt = entry.slice(space + 1);
    const ids = await this.ctx.redis.lrange(k.batch(batchId), 0, -1);
    let head = entry;
    let undone = 0;
    let relabelled = 0;
    // A group labelled as one goes back as one: its leader to pending, its members into its group (one row again).
    const undoing = new Set(ids);
    for (let i = 0; i < ids.length || head !== ''; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const [items, grouped] = await Promise.all([this.ctx.items(k, chunk), this.near.grouped(k, chunk, undoing)]);
      const keys: string[] = [k.undo(moderatorId), k.labelled(), k.unexported(), k.withdrawals(), k.batch(batchId)];
      const args: (string | number)[] = [head, moderatorId, labelledAt, this.ctx.now()];
      chunk.forEach((id, j) => {
        const item = items[j];
        const formId = item?.formId ?? '';
        const status = item?.verdict.status ?? 'spam';
        keys.push(k.label(id), k.item(id), k.labelHistory(id), ...k.pendingAll(formId, status), ...k.pendingConfidenceAll(formId, status));
        args.push(
          id,
          item === undefined ? 0 : Date.parse(item.receivedAt),
          item?.verdict.confidence ?? 0,
          item === undefined ? 0 : this.ctx.expiresAt(item.receivedAt),
          grouped[j] === true ? '1' : '0',
        );
      });
      const r = (await evalScript(this.ctx.redis, SCRIPTS.bulkUndo, keys.length, ...keys, ...args)) as number[];
      if (r[0] === -1) return undefined;
      undone += r[0] ?? 0;
      relabelled += r[1] ?? 0;
      head = '';
    }
    await this.ctx.redis.del(k.batch(batchId));
    return { undone, relabelled };
  }
}
