import { createHash, timingSafeEqual } from 'node:crypto';

export interface Moderator {
  readonly accountId: string;
  readonly moderatorId: string;
}

/** A moderator as signed in: the session keeps the SHA-256 hex of the token used, never the token. */
export interface SignedInModerator extends Moderator {
  readonly tokenSha256: string;
}

/** What the console needs of the tenants store (hot-reloaded): moderators by the SHA-256 hex of their token. */
export interface ModeratorSource {
  readonly current: { readonly moderators: ReadonlyMap<string, Moderator> };
}

/**
 * The moderator a sign-in token belongs to. The token's SHA-256 is compared with every configured hash
 * in constant time, without stopping at a match, so timing tells nothing about which hash matched.
 */
export function findModerator(source: ModeratorSource, token: string): SignedInModerator | undefined {
  const digest = createHash('sha256').update(token, 'utf8').digest();
  let found: SignedInModerator | undefined;
  for (const [hex, moderator] of source.current.moderators) {
    const candidate = Buffer.from(hex, 'hex');
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest)) {
      found = { accountId: moderator.accountId, moderatorId: moderator.moderatorId, tokenSha256: digest.toString('hex') };
    }
  }
  return found;
}

/**
 * Whether the file still lists this moderator with the token the session was opened with: a removed
 * moderator, a new token, or a removal and re-adding under the same id all end the session.
 */
export function stillModerator(source: ModeratorSource, who: SignedInModerator): boolean {
  // A plain look-up is fine here: the hash comes from our own session record, not from the request.
  const m = source.current.moderators.get(who.tokenSha256);
  return m !== undefined && m.accountId === who.accountId && m.moderatorId === who.moderatorId;
}

export function hasModerators(source: ModeratorSource): boolean {
  return source.current.moderators.size > 0;
}
