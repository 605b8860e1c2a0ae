import type { StoreContext } from './context.ts';

/** Items and labels expire by themselves (PXAT at receivedAt + retention); their index entries need a sweep. */
export class Retention {
  constructor(private readonly ctx: StoreContext) {}

  /** Drops index entries that point past retention, for every account. Run at start-up and periodically. */
  async sweep(): Promise<number> {
    const cutoff = this.ctx.now() - this.ctx.retentionMs;
    let removed = 0;
    for (const accountId of await this.ctx.accounts()) {
      // The confidence indexes are scored by confidence: their entries past retention go by member, before the time index forgets them.
      const expired = await this.ctx.redis.zrangebyscore(this.ctx.keys.forAccount(accountId).pending(), '-inf', `(${cutoff}`);
      for (let i = 0; i < expired.length; i += 1000) {
        const chunk = expired.slice(i, i + 1000);
        for (const index of await this.ctx.confidenceIndexes(accountId)) await this.ctx.redis.zrem(index, ...chunk);
      }
      for (const index of await this.ctx.indexes(accountId)) removed += await this.ctx.redis.zremrangebyscore(index, '-inf', `(${cutoff}`);
    }
    return removed;
  }
}
