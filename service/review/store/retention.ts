import type { StoreContext } from './context.ts';

/** Items and labels expire by themselves (PXAT at receivedAt + retention); their index entries need a sweep. */
export class Retention {
  constructor(private readonly ctx: StoreContext) {}

  /** Drops index entries that point past retention, for every account. Run at start-up and periodically. */
  async sweep(): Promise<number> {
    const cutoff = this.ctx.now() - this.ctx.retentionMs;
    let removed = 0;
    for (const accountId of await this.ctx.accounts()) {
      for (const index of await this.ctx.indexes(accountId)) removed += await this.ctx.redis.zremrangebyscore(index, '-inf', `(${cutoff}`);
    }
    return removed;
  }
}
