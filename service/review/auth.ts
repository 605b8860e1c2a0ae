import { createHash, timingSafeEqual } from 'node:crypto';

export interface Moderator {
  readonly accountId: string;
  readonly moderatorId: string;
}

/** What the console needs of the tenants store (hot-reloaded): moderators by the SHA-256 hex of their token. */
export interface ModeratorSource {
  readonly current: { readonly moderators: ReadonlyMap<string, Moderator> };
}

/**
 * The moderator a sign-in token belongs to. The token's SHA-256 is compared with every configured hash
 * in constant time, without stopping at a match, so timing tells nothing about which hash matched.
 */
export function findModerator(source: ModeratorSource, token: string): Moderator | undefined {
  const digest = createHash('sha256').update(token, 'utf8').digest();
  let found: Moderator | undefined;
  for (const [hex, moderator] of source.current.moderators) {
    const candidate = Buffer.from(hex, 'hex');
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest)) found = moderator;
  }
  return found;
}

/** Whether the moderator is still configured (a tenants edit may have removed them since sign-in). */
export function stillModerator(source: ModeratorSource, who: Moderator): boolean {
  for (const m of source.current.moderators.values()) {
    if (m.accountId === who.accountId && m.moderatorId === who.moderatorId) return true;
  }
  return false;
}

export function hasModerators(source: ModeratorSource): boolean {
  return source.current.moderators.size > 0;
}
