import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ListsCache } from '../../../../service/review/lists/cache.ts';
import { listEntrySchema } from '../../../../service/review/lists/entry.ts';
import { ListsStore } from '../../../../service/review/lists/store.ts';
import { ReviewKeys } from '../../../../service/review/store/keys.ts';
import { silent } from '../../../support/logs.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../../../support/redis.ts';
import { until } from '../../../support/until.ts';

const entry = (list: string, kind: string, value: string) => listEntrySchema.parse({ list, kind, value });
const contacts = (sender: string | null, linkHosts: string[] = []) => ({ sender, linkHosts });

let redis: Redis;
let prefix: string;
const closers: Array<() => Promise<void> | void> = [];
beforeAll(() => {
  redis = new Redis(REDIS_URL);
  prefix = testPrefix('lists');
});
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
  await deleteKeys(redis, prefix);
});
afterAll(() => redis.disconnect());

function store(max = 100): ListsStore {
  return new ListsStore(redis, new ReviewKeys(prefix), max);
}

/** An instance's copy with its own connections, as each service instance has. */
async function instance(max = 100, subscribe = true, checkMs = 60_000): Promise<ListsCache> {
  const own = new Redis(REDIS_URL);
  const sub = subscribe ? new Redis(REDIS_URL) : undefined;
  const cache = new ListsCache({
    store: new ListsStore(own, new ReviewKeys(prefix), max),
    ...(sub === undefined ? {} : { subscriber: sub }),
    log: silent,
    checkMs,
  });
  closers.push(async () => {
    await cache.close();
    own.disconnect();
  });
  await cache.start();
  return cache;
}

describe('list entries: validation', () => {
  it('normalizes what a moderator types: case, spaces, a scheme, a path, www., a leading @', () => {
    expect(entry('block', 'sender', '  Ada@Example.COM ').value).toBe('ada@example.com');
    expect(entry('block', 'link-domain', 'https://www.Spam-Shop.example/buy?now=1').value).toBe('spam-shop.example');
    expect(entry('allow', 'email-domain', '@example.org').value).toBe('example.org');
  });

  it('refuses what cannot match: no address for a sender, no host name for a domain, a space, too long', () => {
    for (const [kind, value] of [
      ['sender', 'example.com'],
      ['sender', 'a b@example.com'],
      ['sender', 'ada@localhost'],
      ['email-domain', 'ada@example.com'],
      ['link-domain', 'exa mple.com'],
      ['link-domain', 'example..com'],
      ['link-domain', 'bücher.example'],
      ['link-domain', `${'a'.repeat(64)}.com`],
      ['sender', `${'a'.repeat(300)}@example.com`],
    ]) {
      expect(listEntrySchema.safeParse({ list: 'block', kind, value }).success, `${kind} ${value}`).toBe(false);
    }
    expect(listEntrySchema.safeParse({ list: 'maybe', kind: 'sender', value: 'ada@example.com' }).success).toBe(false);
    expect(listEntrySchema.safeParse({ list: 'block', kind: 'phone', value: 'ada@example.com' }).success).toBe(false);
  });
});

describe('list store (Redis)', () => {
  it('holds at most LISTS_MAX_ENTRIES per account, both lists together; a full account is refused and unchanged', async () => {
    const s = store(3);
    expect(await s.add('acme', entry('block', 'sender', 'a@example.com'), 'alice')).toBe('added');
    expect(await s.add('acme', entry('block', 'sender', 'a@example.com'), 'alice')).toBe('exists');
    expect(await s.add('acme', entry('allow', 'link-domain', 'example.org'), 'alice')).toBe('added');
    expect(await s.add('acme', entry('block', 'email-domain', 'spam.example'), 'alice')).toBe('added');
    expect(await s.add('acme', entry('block', 'sender', 'd@example.com'), 'alice')).toBe('full');
    expect((await s.entries('acme')).map((e) => e.value).sort()).toEqual(['a@example.com', 'example.org', 'spam.example']);
    // Moving a value to the other list takes no room: it leaves the first.
    expect(await s.add('acme', entry('allow', 'sender', 'a@example.com'), 'bob')).toBe('moved');
    const moved = (await s.entries('acme')).find((e) => e.value === 'a@example.com');
    expect(moved).toMatchObject({ list: 'allow', kind: 'sender', by: 'bob' });
    expect(await s.entries('acme')).toHaveLength(3);
    // Another account has its own room.
    expect(await s.add('globex', entry('block', 'sender', 'd@example.com'), 'gina')).toBe('added');
    expect(await s.remove('acme', entry('block', 'email-domain', 'spam.example'))).toBe(true);
    expect(await s.remove('acme', entry('block', 'email-domain', 'spam.example'))).toBe(false);
    expect(await s.add('acme', entry('block', 'sender', 'd@example.com'), 'alice')).toBe('added');
  });

  it("keeps accounts apart: an account's entries match only its own submissions", async () => {
    const s = store();
    const cache = await instance();
    await s.add('acme', entry('block', 'sender', 'ada@example.com'), 'alice');
    await until(() => cache.size('acme') === 1, 'the change to reach the copy');
    expect(cache.match('acme', contacts('ada@example.com'))).toMatchObject({ list: 'block', kind: 'sender' });
    expect(cache.match('globex', contacts('ada@example.com'))).toBeUndefined();
    expect(await s.entries('globex')).toEqual([]);
  });

  it('reaches a second instance by pub/sub, and one whose message was missed by the version check', async () => {
    const s = store();
    const subscribed = await instance();
    // No subscriber at all: only the version check, every 200 ms, can bring the change.
    const deaf = await instance(100, false, 200);
    await s.add('acme', entry('block', 'link-domain', 'spam-shop.example'), 'alice');
    const hit = contacts('someone@example.org', ['www2.spam-shop.example']);
    await until(() => subscribed.match('acme', hit) !== undefined, 'pub/sub to bring the entry', 5_000);
    await until(() => deaf.match('acme', hit) !== undefined, 'the version check to bring the entry', 5_000);
    await s.remove('acme', entry('block', 'link-domain', 'spam-shop.example'));
    await until(() => subscribed.match('acme', hit) === undefined && deaf.match('acme', hit) === undefined, 'the removal', 5_000);
  });

  it('loads what Redis holds at start, and keeps its copy while Redis cannot be read', async () => {
    const s = store();
    await s.add('acme', entry('allow', 'email-domain', 'partner.example'), 'alice');
    const fresh = await instance();
    expect(fresh.match('acme', contacts('bob@partner.example'))).toMatchObject({ list: 'allow', kind: 'email-domain' });
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    down.on('error', () => undefined);
    const broken = new ListsCache({ store: new ListsStore(down, new ReviewKeys(prefix), 100), log: silent, checkMs: 60_000 });
    broken.replace('acme', ['block sender ada@example.com']);
    await broken.check();
    expect(broken.match('acme', contacts('ada@example.com'))).toMatchObject({ list: 'block' });
    await broken.close();
    down.disconnect();
  });
});
