import type { StoreContext } from './context.ts';
import type { ExportLedger } from './export-ledger.ts';
import type { ItemStore } from './items.ts';
import { evalScript, SCRIPTS } from './scripts.ts';

/** Search lines one sweep step looks at (HSCAN COUNT). */
const SWEEP_STEP = 1_000;

/**
 * Items and labels expire by themselves (PXAT at receivedAt + retention); their index entries and search lines need a
 * sweep, and so do the look-up verdicts and kept fields of an account that stopped sending (remember trims them as it
 * writes). Labelled items past their cap whose labels are exported go too.
 */
export class Retention {
  constructor(
    private readonly ctx: StoreContext,
    private readonly items: ItemStore,
    private readonly ledger: ExportLedger,
  ) {}

  /** Drops index entries and search lines that point past retention, for every account. Run at start-up and hourly. */
  async sweep(): Promise<number> {
    const now = this.ctx.now();
    const cutoff = now - this.ctx.retentionMs;
    let removed = 0;
    for (const accountId of await this.ctx.accounts()) {
      const k = this.ctx.keys.forAccount(accountId);
      // The confidence indexes are scored by confidence: their entries past retention go by member, before the time index forgets them.
      const expired = await this.ctx.redis.zrangebyscore(k.pending(), '-inf', `(${cutoff}`);
      for (let i = 0; i < expired.length; i += 1000) {
        const chunk = expired.slice(i, i + 1000);
        for (const index of await this.ctx.confidenceIndexes(accountId)) await this.ctx.redis.zrem(index, ...chunk);
      }
      for (const index of await this.ctx.indexes(accountId)) removed += await this.ctx.redis.zremrangebyscore(index, '-inf', `(${cutoff}`);
      await this.items.trimRemembered(accountId);
      removed += await this.#sweepSearch(accountId, cutoff, now - this.ctx.keepFieldsMs);
      await this.ledger.trimLabelled(accountId);
    }
    return removed;
  }

  /** Search lines of items gone (expired, erased) or of kept fields past their window. */
  async #sweepSearch(accountId: string, itemsFrom: number, keptFrom: number): Promise<number> {
    const k = this.ctx.keys.forAccount(accountId);
    let removed = 0;
    let cursor = '0';
    do {
      const [next, n] = (await evalScript(
        this.ctx.redis,
        SCRIPTS.sweepSearch,
        2,
        k.search(),
        k.kept(),
        cursor,
        SWEEP_STEP,
        itemsFrom,
        keptFrom,
        k.base,
      )) as [string, number];
      cursor = next;
      removed += n;
    } while (cursor !== '0');
    return removed;
  }
}
