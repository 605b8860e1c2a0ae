import type { RedisClient } from '../../config/redis-target.ts';
import { StoreContext, type StoreOptions } from './context.ts';
import { BulkLabels } from './bulk.ts';
import { Erasure } from './erasure.ts';
import { ExportLedger } from './export-ledger.ts';
import { ItemStore } from './items.ts';
import { LabelStore } from './labels.ts';
import { Listing } from './listing.ts';
import { NearGroups } from './near-groups.ts';
import type { ReviewKeys } from './keys.ts';
import { Retention } from './retention.ts';

/**
 * The review items, their labels and the indexes the console reads, all in Redis, one part per concern. Every
 * method takes the account id and touches only that account's keys (see keys.ts), so accounts are kept apart by
 * construction.
 */
export class ReviewStore {
  readonly items: ItemStore;
  /** Similar submissions grouped as they arrive: one row, one label, one undo. */
  readonly near: NearGroups;
  readonly labels: LabelStore;
  readonly bulk: BulkLabels;
  readonly listing: Listing;
  readonly exports: ExportLedger;
  readonly erasure: Erasure;
  readonly retention: Retention;
  readonly #ctx: StoreContext;

  constructor(redis: RedisClient, opts: StoreOptions) {
    this.#ctx = new StoreContext(redis, opts);
    this.near = new NearGroups(this.#ctx);
    this.items = new ItemStore(this.#ctx, this.near);
    this.bulk = new BulkLabels(this.#ctx, this.near);
    this.labels = new LabelStore(this.#ctx, this.items, this.bulk, this.near);
    this.listing = new Listing(this.#ctx);
    this.exports = new ExportLedger(this.#ctx);
    this.erasure = new Erasure(this.#ctx, this.exports);
    this.retention = new Retention(this.#ctx, this.items, this.exports);
  }

  get keys(): ReviewKeys {
    return this.#ctx.keys;
  }

  get redis(): RedisClient {
    return this.#ctx.redis;
  }

  get retentionMs(): number {
    return this.#ctx.retentionMs;
  }

  expiresAt(receivedAt: string): number {
    return this.#ctx.expiresAt(receivedAt);
  }
}
