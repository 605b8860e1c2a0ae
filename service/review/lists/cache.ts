import type { Logger } from 'pino';
import { Registry, type Counter } from 'prom-client';
import { counter } from '../metrics.ts';
import { registrableDomain } from '../../../core/features/registrable-domain.ts';
import type { Contacts } from '../../../core/classifier/types.ts';
import type { RedisClient } from '../../config/redis-target.ts';
import type { ListHit, ListLookup } from '../../verify/lists.ts';
import { entryOfField, type EntryKind, type ListName } from './entry.ts';
import type { ListsStore } from './store.ts';

/** One list of one account as hash sets: a look-up is one Set.has per value, whatever the list's size. */
interface Sets {
  readonly sender: Set<string>;
  readonly 'email-domain': Set<string>;
  readonly 'link-domain': Set<string>;
  size: number;
}

interface Compiled {
  readonly block: Sets;
  readonly allow: Sets;
}

const DECISIONS_METRIC = 'formguard_list_decisions_total';

const emptySets = (): Sets => ({ sender: new Set(), 'email-domain': new Set(), 'link-domain': new Set(), size: 0 });

/**
 * What a host matches: an entry naming the host itself, or its registrable domain (an entry `example.com` covers
 * `shop.example.com`; `shop.example.com` covers only itself). Two look-ups.
 */
function domainHit(set: Set<string>, host: string): string | undefined {
  if (set.has(host)) return host;
  const owner = registrableDomain(host);
  return owner !== host && set.has(owner) ? owner : undefined;
}

function hitIn(sets: Sets, list: ListName, c: Contacts): ListHit | undefined {
  if (sets.size === 0) return undefined;
  const sender = c.sender;
  if (sender !== null) {
    if (sets.sender.has(sender)) return { list, kind: 'sender', value: sender, matched: sender };
    const domain = sender.slice(sender.lastIndexOf('@') + 1);
    const d = sets['email-domain'].size === 0 ? undefined : domainHit(sets['email-domain'], domain);
    if (d !== undefined) return { list, kind: 'email-domain', value: d, matched: domain };
  }
  if (sets['link-domain'].size > 0) {
    for (const host of c.linkHosts) {
      const d = domainHit(sets['link-domain'], host);
      if (d !== undefined) return { list, kind: 'link-domain', value: d, matched: host };
    }
  }
  return undefined;
}

export interface ListsCacheOptions {
  readonly store: ListsStore;
  /** A connection of its own for SUBSCRIBE (a subscribed connection sends nothing else). */
  readonly subscriber?: RedisClient;
  readonly log: Logger;
  readonly registry?: Registry;
  /** LISTS_CHECK_MS: how often the versions are compared, so a missed message is made up for within this. */
  readonly checkMs: number;
}

/**
 * Every instance's copy of the accounts' lists, in memory, for the verify route: a change reaches it by pub/sub at once,
 * and by a version check every LISTS_CHECK_MS if the message was missed (a reconnect, a subscriber that was down).
 * While Redis cannot be read, the last copy stays in use.
 */
export class ListsCache implements ListLookup {
  readonly #lists = new Map<string, Compiled>();
  /** The version each account's copy is as of. */
  readonly #versions = new Map<string, string | null>();
  /** Loads in flight per account, and whether another was asked for meanwhile (it runs after, never beside). */
  readonly #loading = new Map<string, { again: boolean; done: Promise<void> }>();
  readonly #decisions: Counter<'list' | 'kind'> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly opts?: ListsCacheOptions) {
    this.#decisions =
      opts === undefined
        ? undefined
        : counter(
            opts.registry ?? new Registry(),
            DECISIONS_METRIC,
            "Verdicts decided by an account's allow or block list, by list and by what matched (sender, email-domain, link-domain)",
            ['list', 'kind'],
          );
  }

  /** The first hit of the block list, else of the allow list; undefined without one. O(1) per sender and per host. */
  match(accountId: string, contacts: Contacts): ListHit | undefined {
    const c = this.#lists.get(accountId);
    if (c === undefined) return undefined;
    const hit = hitIn(c.block, 'block', contacts) ?? hitIn(c.allow, 'allow', contacts);
    if (hit !== undefined) this.#decisions?.inc({ list: hit.list, kind: hit.kind });
    return hit;
  }

  /** Entries the copy holds for an account (both lists). */
  size(accountId: string): number {
    const c = this.#lists.get(accountId);
    return c === undefined ? 0 : c.block.size + c.allow.size;
  }

  /** Replaces an account's copy with these hash fields (`<list> <kind> <value>`). */
  replace(accountId: string, fields: Iterable<string>): void {
    const compiled: Compiled = { block: emptySets(), allow: emptySets() };
    for (const field of fields) {
      const e = entryOfField(field);
      if (e === undefined) continue;
      const sets = compiled[e.list];
      sets[e.kind as EntryKind].add(e.value);
      sets.size++;
    }
    if (compiled.block.size + compiled.allow.size === 0) this.#lists.delete(accountId);
    else this.#lists.set(accountId, compiled);
  }

  /** Subscribes, loads every account's lists, and starts the periodic version check. */
  async start(): Promise<void> {
    const { store, subscriber, log, checkMs } = this.#required();
    // The check first: with Redis down at start, SUBSCRIBE waits for it, and the check keeps trying meanwhile.
    this.#timer = setInterval(() => void this.check(), checkMs);
    this.#timer.unref();
    if (subscriber !== undefined) {
      subscriber.on('message', (channel: string, accountId: string) => {
        if (channel === store.channel()) void this.reload(accountId);
      });
      // A (re)subscribed connection may have missed messages: compare versions at once.
      subscriber.on('ready', () => void this.check());
      // Awaited (start resolves subscribed), but the interval above already runs if Redis is not there yet.
      await subscriber
        .subscribe(store.channel())
        .catch((err: unknown) => log.warn({ err }, 'lists: subscribe failed; the version check keeps lists current'));
    }
    await this.check();
  }

  /** Compares every account's version with the copy's and reloads those that differ; concurrent calls share one. */
  check(): Promise<void> {
    if (this.#checking !== undefined) return this.#checking;
    const { store, log } = this.#required();
    this.#checking = store
      .versions()
      .then(async (versions) => {
        const stale = [...versions].filter(([accountId, v]) => this.#versions.get(accountId) !== v).map(([accountId]) => accountId);
        await Promise.all(stale.map((accountId) => this.reload(accountId)));
      })
      .catch((err: unknown) => log.debug({ err }, 'lists: version check failed; the last copy stays in use'))
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  /** Reads an account's lists again; a reload asked for while one runs runs once more after it. */
  reload(accountId: string): Promise<void> {
    const running = this.#loading.get(accountId);
    if (running !== undefined) {
      running.again = true;
      return running.done;
    }
    const { store, log } = this.#required();
    const state = { again: false, done: Promise.resolve() };
    const run = async (): Promise<void> => {
      do {
        state.again = false;
        if (this.#closed) return;
        const { version, fields } = await store.snapshot(accountId);
        this.replace(accountId, fields);
        this.#versions.set(accountId, version);
      } while (state.again);
    };
    state.done = run()
      .catch((err: unknown) => log.debug({ err, accountId }, 'lists: reload failed; the next version check tries again'))
      .finally(() => this.#loading.delete(accountId));
    this.#loading.set(accountId, state);
    return state.done;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#checking;
    await Promise.all([...this.#loading.values()].map((l) => l.done));
    this.opts?.subscriber?.disconnect();
  }

  #required(): ListsCacheOptions {
    if (this.opts === undefined) throw new Error('a ListsCache without a store cannot follow Redis');
    return this.opts;
  }
}
