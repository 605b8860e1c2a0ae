import { deleteKeys, scanKeys } from '../../config/redis-target.ts';
import { reviewJobSchema } from '../intake/job-schema.ts';
import { parseJson, type StoreContext } from './context.ts';
import type { ExportLedger } from './export-ledger.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

/** What an erased item key holds until it expires: valid JSON that is no item, so reads skip it. */
const ERASED = JSON.stringify({ erased: true });

/** What the store held of a submission that was erased (per account; one submissionId belongs to one account). */
export interface ErasedSubmission {
  readonly submissionId: string;
  readonly accountId: string;
  /** The queued item (with its fields) was there. */
  readonly item: boolean;
  /** It had a label (exported or not). */
  readonly label: boolean;
  /** The verdict of an unqueued submission was kept for look-ups. */
  readonly lookup: boolean;
}

/** What the store held of an erased account: its items, their labels, and every other key of the account. */
export interface ErasedAccount {
  readonly items: number;
  readonly labels: number;
  readonly keys: number;
}

/** GDPR erasure of one submission or a whole account. */
export class Erasure {
  constructor(
    private readonly ctx: StoreContext,
    private readonly ledger: ExportLedger,
  ) {}

  /**
   * Erases every key of an account: items, labels, indexes, look-up verdicts, undo histories, withdrawals, and the
   * account from the list of accounts (remove the account from the tenants file first, or new submissions bring it back).
   */
  async eraseAccount(accountId: string): Promise<ErasedAccount> {
    const { redis, keys: layout } = this.ctx;
    const base = layout.forAccount(accountId).base;
    let items = 0;
    let labels = 0;
    let keys = 0;
    // On a cluster, every master is scanned: one SCAN sees one node's keys.
    await scanKeys(redis, `${globEscape(base)}:*`, async (found) => {
      for (const key of found) {
        if (key.startsWith(`${base}:item:`)) items++;
        else if (key.startsWith(`${base}:label:`)) labels++;
      }
      keys += await deleteKeys(redis, found);
    });
    await redis.srem(layout.accounts(), accountId);
    return { items, labels, keys };
  }

  /**
   * Erases one submission wherever an account holds it: its item and fields, its label and the labels it replaced,
   * its look-up verdict, its index entries (so no export writes it again) and its withdrawals.
   */
  async eraseSubmission(submissionId: string): Promise<ErasedSubmission[]> {
    const { redis } = this.ctx;
    const out: ErasedSubmission[] = [];
    for (const accountId of await this.ctx.accounts()) {
      const k = this.ctx.keys.forAccount(accountId);
      const [item] = await this.ctx.items(k, [submissionId]);
      const [label, history, lookup, keptRaw] = await Promise.all([
        redis.exists(k.label(submissionId)),
        redis.exists(k.labelHistory(submissionId)),
        redis.hexists(k.seen(), submissionId),
        redis.hget(k.kept(), submissionId),
      ]);
      const kept = keptRaw === null ? undefined : reviewJobSchema.safeParse(parseJson(keptRaw)).data;
      const withdrawals = (await this.ledger.withdrawals(accountId, Number.MAX_SAFE_INTEGER)).filter(
        (w) => w.entry?.submissionId === submissionId,
      );
      if (item === undefined && kept === undefined && label + history + lookup === 0 && withdrawals.length === 0) continue;
      const keys = [
        k.item(submissionId),
        k.label(submissionId),
        k.labelHistory(submissionId),
        k.campaign(submissionId),
        k.campaignMore(submissionId),
        k.withdrawals(),
        k.seen(),
        k.kept(),
        k.search(),
        ...(await this.ctx.indexes(accountId)),
        ...(await this.ctx.confidenceIndexes(accountId)),
        k.seenAt(),
        k.keptAt(),
      ];
      await evalScript(redis, SCRIPTS.eraseSubmission, keys.length, ...keys, submissionId, ERASED, ...withdrawals.map((w) => w.member));
      out.push({ submissionId, accountId, item: item !== undefined || kept !== undefined, label: label === 1, lookup: lookup === 1 });
    }
    return out;
  }
}

/** A literal for SCAN MATCH: the glob characters of a prefix or account id match only themselves. */
function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
