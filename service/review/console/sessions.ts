import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '../../config/redis-target.ts';
import type { SignedInModerator } from './auth.ts';
import type { ReviewKeys } from '../store/keys.ts';
import { sessionRecordSchema, type SessionRecord } from '../../../core/labels/records.ts';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Console sessions: a random id in the cookie; Redis holds only its hash, with a TTL. */
export class SessionStore {
  readonly #redis: RedisClient;
  readonly #keys: ReviewKeys;
  readonly ttlSeconds: number;

  constructor(redis: RedisClient, keys: ReviewKeys, ttlSeconds: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.ttlSeconds = ttlSeconds;
  }

  /** Binds the session to the token's hash, so a new token or a re-added moderator does not inherit it. */
  async create(who: SignedInModerator): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const record: SessionRecord = {
      accountId: who.accountId,
      moderatorId: who.moderatorId,
      tokenSha256: who.tokenSha256,
      createdAt: new Date().toISOString(),
    };
    await this.#redis.set(this.#key(id), JSON.stringify(record), 'EX', this.ttlSeconds);
    return id;
  }

  async get(id: string | undefined): Promise<SessionRecord | undefined> {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const raw = await this.#redis.get(this.#key(id));
    if (raw === null) return undefined;
    const parsed = sessionRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id === undefined || !SESSION_ID.test(id)) return;
    await this.#redis.del(this.#key(id));
  }

  #key(id: string): string {
    return this.#keys.session(createHash('sha256').update(id).digest('hex'));
  }
}
