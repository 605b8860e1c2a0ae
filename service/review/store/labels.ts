import type { Label, LabelRecord } from '../../../core/labels/records.ts';
import { DAY_MS, parseLabel, type StoreContext } from './context.ts';
import { BATCH_ENTRY, type BulkLabels } from './bulk.ts';
import type { ItemStore } from './items.ts';
import { labelRecordOf } from './label-record.ts';
import { NearGroups } from './near-groups.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

/**
 * A label refused because the item's label changed since the moderator saw it (another moderator labelled,
 * relabelled or undid it meanwhile): `current` is the item's label now, undefined when it has none.
 */
export class LabelConflictError extends Error {
  override name = 'LabelConflictError';
  constructor(readonly current: LabelRecord | undefined) {
    super(
      current === undefined ? 'The item is no longer labelled' : `The item is already labelled ${current.label} by ${current.moderatorId}`,
    );
  }
}

export type UndoResult =
  | { readonly kind: 'undone'; readonly submissionId: string }
  /** Refused: the moderator's newest label was relabelled since (by `by`); it is dropped, the next undo goes further back. */
  | { readonly kind: 'relabelled'; readonly submissionId: string; readonly by: string }
  /** A bulk label taken back as one action: `undone` labels went, `relabelled` had been relabelled since and stay. */
  | { readonly kind: 'undone-bulk'; readonly undone: number; readonly relabelled: number }
  | { readonly kind: 'nothing' };

/** Fields a moderator pasted for a miss whose fields were not kept, size-capped as the sink caps queued ones. */
export interface PastedFields {
  readonly fields: Record<string, unknown>;
  readonly truncated: boolean;
  readonly cutFields?: string[];
}

/** An undo-list entry names one label: the item and that label's labelledAt (older entries hold the id only). */
function undoEntry(submissionId: string, labelledAt: string): string {
  return `${submissionId} ${labelledAt}`;
}

function parseUndoEntry(entry: string): { submissionId: string; labelledAt: string } {
  const space = entry.indexOf(' ');
  return space < 0 ? { submissionId: entry, labelledAt: '' } : { submissionId: entry.slice(0, space), labelledAt: entry.slice(space + 1) };
}

/** Moderators' labels on queued items, and each moderator's undo of them. */
export class LabelStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly items: ItemStore,
    private readonly bulk: BulkLabels,
    private readonly near: NearGroups = new NearGroups(ctx),
  ) {}

  getLabel(accountId: string, submissionId: string): Promise<LabelRecord | undefined> {
    return this.ctx.label(accountId, submissionId);
  }

  /**
   * Labels an item (or relabels it); undefined when the item is unknown to this account or expired.
   * `expected` is the label the moderator saw: null for none (a pending item), or that label's labelId (its
   * labelledAt where it has none, which cannot tell it from a label of the same millisecond). When
   * given and the item's label is no longer that one, nothing changes and LabelConflictError says what it is now,
   * so two moderators on the same item never overwrite each other unseen. Omitted: no check (the CLI).
   */
  async label(
    accountId: string,
    submissionId: string,
    label: Label,
    moderatorId: string,
    opts: { expected?: string | null; pasted?: PastedFields } = {},
  ): Promise<LabelRecord | undefined> {
    const entry = await this.items.get(accountId, submissionId);
    if (entry === undefined) return undefined;
    let item = entry.item;
    if (!entry.queued) {
      // A miss: labelled with the fields kept for it, or, past that window, with the fields the moderator pasted.
      if (entry.fieldsKept) item = { ...item, reported: 'kept' };
      else if (opts.pasted !== undefined) {
        const { cutFields: _cutFields, ...rest } = item;
        item = { ...rest, ...opts.pasted, reported: 'pasted' };
      } else return undefined;
    }
    const labelledAtMs = this.ctx.now();
    const record = labelRecordOf(
      item,
      accountId,
      label,
      moderatorId,
      new Date(labelledAtMs).toISOString(),
      item.reported === undefined ? 'single' : 'reported',
    );
    const k = this.ctx.keys.forAccount(accountId);
    // An account whose first item is a reported miss: the export and the sweep walk the accounts listed here.
    if (!entry.queued) await this.ctx.redis.sadd(this.ctx.keys.accounts(), accountId);
    const r = await evalScript(
      this.ctx.redis,
      SCRIPTS.label,
      17,
      k.item(submissionId),
      k.label(submissionId),
      ...k.pendingAll(item.formId, item.verdict.status),
      k.labelled(),
      k.unexported(),
      k.undo(moderatorId),
      k.labelHistory(submissionId),
      ...k.pendingConfidenceAll(item.formId, item.verdict.status),
      k.search(),
      k.kept(),
      k.keptAt(),
      JSON.stringify(record),
      labelledAtMs,
      this.ctx.expiresAt(item.receivedAt),
      submissionId,
      DAY_MS,
      undoEntry(submissionId, record.labelledAt),
      opts.expected === undefined ? '' : opts.expected === null ? '-' : opts.expected,
      // A miss the model let through: stored as an item now, with the fields kept (or pasted) for it.
      entry.queued ? '' : JSON.stringify(item),
    );
    if (Array.isArray(r)) throw new LabelConflictError(parseLabel(String(r[1] ?? '')));
    return r === 1 ? record : undefined;
  }

  /**
   * Takes back this moderator's most recent label in this account: the label it replaced comes back, or the item
   * goes back to pending. Refused ('relabelled') when someone relabelled the item since: nothing changes then.
   */
  async undo(accountId: string, moderatorId: string): Promise<UndoResult> {
    const k = this.ctx.keys.forAccount(accountId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.ctx.redis.lindex(k.undo(moderatorId), 0);
      if (entry === null) return { kind: 'nothing' };
      if (entry.startsWith(BATCH_ENTRY)) {
        const r = await this.bulk.undo(accountId, moderatorId, entry);
        if (r !== undefined) return { kind: 'undone-bulk', ...r };
        continue; // raced with another label or undo of this moderator: look at the head again
      }
      const { submissionId, labelledAt } = parseUndoEntry(entry);
      const [item] = await this.ctx.items(k, [submissionId]);
      const formId = item?.formId ?? '';
      const status = item?.verdict.status ?? 'spam';
      const [code, by] = (await evalScript(
        this.ctx.redis,
        SCRIPTS.undo,
        15,
        k.undo(moderatorId),
        k.label(submissionId),
        k.labelled(),
        k.unexported(),
        ...k.pendingAll(formId, status),
        k.item(submissionId),
        k.labelHistory(submissionId),
        k.withdrawals(),
        ...k.pendingConfidenceAll(formId, status),
        entry,
        submissionId,
        item === undefined ? 0 : Date.parse(item.receivedAt),
        moderatorId,
        labelledAt,
        item === undefined ? 0 : this.ctx.expiresAt(item.receivedAt),
        this.ctx.now(),
        item?.verdict.confidence ?? 0,
        (await this.near.grouped(k, [submissionId]))[0] === true ? '1' : '0',
      )) as [number, string?];
      if (code === 1 || code === 2) return { kind: 'undone', submissionId };
      // Refuse rather than skip: undoing an older label instead would change something the moderator did not mean to.
      if (code === -1) return { kind: 'relabelled', submissionId, by: by ?? '' };
      // 0: raced with another label of this moderator; -2: item expired; -3: label already gone. Try the next.
    }
    return { kind: 'nothing' };
  }
}
