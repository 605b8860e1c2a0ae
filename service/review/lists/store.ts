import type { RedisClient } from '../../config/redis-target.ts';
import type { ReviewKeys } from '../store/keys.ts';
import { entryMetaSchema, entryOfField, fieldOf, type EntryKind, type EntryMeta, type ListEntry, type ListName } from './entry.ts';

/**
 * Adds an entry unless it is there; an entry of the same value on the other list moves (one value is on one list).
 * Refused (-1) when the account holds LISTS_MAX_ENTRIES already, counting both lists.
 * KEYS[1] the account's lists hash. ARGV: field, the other list's field, meta JSON, max entries.
 * Returns 0 already there, 1 added, 2 moved from the other list, -1 full.
 */
const ADD = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local moved = redis.call('HDEL', KEYS[1], ARGV[2])
if moved == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1 + moved
`;

export type AddResult = 'added' | 'moved' | 'exists' | 'full';

export interface StoredEntry {
  readonly list: ListName;
  readonly kind: EntryKind;
  readonly value: string;
  readonly by: string;
  readonly at: number;
}

/**
 * An account's allow and block lists in Redis: one hash per account (`<prefix>:review:{<account>}:lists`, field
 * `<list> <kind> <value>`, value who added it and when), in the account's slot like its other review keys. Every change
 * bumps the account's version in one shared hash (`<prefix>:review:lists:versions`) and is published on
 * `<prefix>:review:lists:changed`, which every instance's ListsCache follows.
 */
export class ListsStore {
  constructor(
    readonly redis: RedisClient,
    readonly keys: ReviewKeys,
    /** LISTS_MAX_ENTRIES: entries per account, both lists together. */
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  listsKey(accountId: string): string {
    return `${this.keys.forAccount(accountId).base}:lists`;
  }

  versionsKey(): string {
    return `${this.keys.prefix}:review:lists:versions`;
  }

  channel(): string {
    return `${this.keys.prefix}:review:lists:changed`;
  }

  async add(accountId: string, entry: ListEntry, moderatorId: string): Promise<AddResult> {
    const other: ListName = entry.list === 'block' ? 'allow' : 'block';
    const meta: EntryMeta = { by: moderatorId, at: this.now() };
    const n = Number(
      await this.redis.eval(
        ADD,
        1,
        this.listsKey(accountId),
        fieldOf(entry),
        fieldOf({ ...entry, list: other }),
        JSON.stringify(meta),
        String(this.maxEntries),
      ),
    );
    if (n === -1) return 'full';
    if (n === 0) return 'exists';
    await this.changed(accountId);
    return n === 2 ? 'moved' : 'added';
  }

  async remove(accountId: string, entry: Pick<ListEntry, 'list' | 'kind' | 'value'>): Promise<boolean> {
    const removed = await this.redis.hdel(this.listsKey(accountId), fieldOf(entry));
    if (removed > 0) await this.changed(accountId);
    return removed > 0;
  }

  /** Every entry of the account, newest first. */
  async entries(accountId: string): Promise<StoredEntry[]> {
    const raw = await this.redis.hgetall(this.listsKey(accountId));
    const out: StoredEntry[] = [];
    for (const [field, value] of Object.entries(raw)) {
      const e = entryOfField(field);
      if (e === undefined) continue;
      const meta = parseMeta(value);
      out.push({ ...e, by: meta?.by ?? '', at: meta?.at ?? 0 });
    }
    return out.sort((a, b) => b.at - a.at || (a.value < b.value ? -1 : 1));
  }

  /** Which list each value is on (null: neither), by one HMGET of the few fields asked for. */
  async listedOf(accountId: string, values: ReadonlyArray<Pick<ListEntry, 'kind' | 'value'>>): Promise<(ListName | null)[]> {
    if (values.length === 0) return [];
    const fields = values.flatMap((v) => [fieldOf({ ...v, list: 'block' }), fieldOf({ ...v, list: 'allow' })]);
    const found = await this.redis.hmget(this.listsKey(accountId), ...fields);
    return values.map((_, i) => (found[2 * i] != null ? 'block' : found[2 * i + 1] != null ? 'allow' : null));
  }

  /** The accounts' list versions (account → counter); an account never changed is not in it. */
  async versions(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.redis.hgetall(this.versionsKey())));
  }

  /** The account's entries as the verify side compares them, and the version they are as of (read first). */
  async snapshot(accountId: string): Promise<{ version: string | null; fields: string[] }> {
    const version = await this.redis.hget(this.versionsKey(), accountId);
    const fields = await this.redis.hkeys(this.listsKey(accountId));
    return { version, fields };
  }

  /** Bumps the version (the periodic check's signal) and publishes (the prompt one). */
  private async changed(accountId: string): Promise<void> {
    await this.redis.hincrby(this.versionsKey(), accountId, 1);
    await this.redis.publish(this.channel(), accountId);
  }
}

function parseMeta(raw: string): EntryMeta | undefined {
  try {
    return entryMetaSchema.parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
