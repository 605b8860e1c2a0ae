import { z } from 'zod';
import { labelWithdrawalSchema, type LabelRecord } from '../../../core/labels/records.ts';
import { parseJson, type StoreContext } from './context.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

/** A label waiting for the export: `score` (its labelledAt in ms) and `record.labelId` acknowledge it. */
export interface UnexportedLabel {
  readonly submissionId: string;
  readonly score: string;
  /** Undefined once past retention (the label expired before it was exported). */
  readonly record: LabelRecord | undefined;
}

/**
 * An undone label as the withdrawals index holds it (the time of the undo is the score). `exported`: the label had
 * been acknowledged by an export, so its line is in the files; otherwise it may be (written, not yet acknowledged).
 */
export const withdrawalEntrySchema = labelWithdrawalSchema
  .pick({ submissionId: true, labelId: true, withdrawn: true })
  .extend({ exported: z.boolean() });
export type WithdrawalEntry = z.infer<typeof withdrawalEntrySchema>;

/** A withdrawal waiting for the export; entry undefined for a member that does not parse (it is acknowledged as is). */
export interface PendingWithdrawal {
  readonly member: string;
  readonly entry: WithdrawalEntry | undefined;
  readonly withdrawnAt: string;
}

/** What the label export still owes: labels not yet written to the files, and undone labels not yet taken back. */
export class ExportLedger {
  constructor(private readonly ctx: StoreContext) {}

  /** Every account that has had review items. */
  accounts(): Promise<string[]> {
    return this.ctx.accounts();
  }

  /** Labels of an account not yet exported, oldest first, with the index score that acknowledges them. */
  async unexported(accountId: string, limit = 1000): Promise<UnexportedLabel[]> {
    const k = this.ctx.keys.forAccount(accountId);
    const flat = await this.ctx.redis.zrange(k.unexported(), '0', String(limit - 1), 'WITHSCORES');
    const out: UnexportedLabel[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const submissionId = flat[i] ?? '';
      out.push({ submissionId, score: flat[i + 1] ?? '0', record: await this.ctx.label(accountId, submissionId) });
    }
    return out;
  }

  /** Marks labels exported, each only if it is still the item's label (not relabelled since it was read). */
  async acknowledgeExported(accountId: string, entries: readonly UnexportedLabel[]): Promise<number> {
    if (entries.length === 0) return 0;
    const k = this.ctx.keys.forAccount(accountId);
    const args = entries.flatMap((e) => [e.submissionId, e.score, e.record?.labelId ?? '']);
    const keys = [k.unexported(), ...entries.map((e) => k.label(e.submissionId))];
    const n = (await evalScript(this.ctx.redis, SCRIPTS.acknowledgeExported, keys.length, ...keys, ...args)) as number;
    // Exported labels may go now: the account's labelled items are trimmed to their cap.
    await this.trimLabelled(accountId);
    return n;
  }

  /**
   * Keeps an account's labelled items at REVIEW_MAX_LABELLED, dropping the oldest exported ones (trim-labelled.lua);
   * labels not yet exported are never dropped: how many are kept past the cap is returned (and logged by the caller).
   */
  async trimLabelled(accountId: string): Promise<{ dropped: number; overCap: number }> {
    if (this.ctx.maxLabelled <= 0) return { dropped: 0, overCap: 0 };
    const k = this.ctx.keys.forAccount(accountId);
    const [dropped, overCap] = (await evalScript(
      this.ctx.redis,
      SCRIPTS.trimLabelled,
      3,
      k.labelled(),
      k.unexported(),
      k.search(),
      this.ctx.maxLabelled,
      k.base,
    )) as [number, number];
    if (overCap > 0) this.ctx.onLabelsOverCap(accountId, overCap);
    return { dropped, overCap };
  }

  /** Labels taken back by an undo and not yet handled by an export, oldest undo first. */
  async withdrawals(accountId: string, limit = 1000): Promise<PendingWithdrawal[]> {
    const flat = await this.ctx.redis.zrange(this.ctx.keys.forAccount(accountId).withdrawals(), '0', String(limit - 1), 'WITHSCORES');
    const out: PendingWithdrawal[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const member = flat[i] ?? '';
      const parsed = withdrawalEntrySchema.safeParse(parseJson(member));
      out.push({ member, entry: parsed.success ? parsed.data : undefined, withdrawnAt: new Date(Number(flat[i + 1] ?? 0)).toISOString() });
    }
    return out;
  }

  /** Forgets withdrawals the export has written (or found nothing to withdraw for). */
  async acknowledgeWithdrawals(accountId: string, members: readonly string[]): Promise<number> {
    if (members.length === 0) return 0;
    return this.ctx.redis.zrem(this.ctx.keys.forAccount(accountId).withdrawals(), ...members);
  }
}
