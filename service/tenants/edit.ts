import type { RateLimitRecord, TenantsFile } from './schema.ts';
import { generateKey, sha256Hex } from './key.ts';

/** Pure edits behind the tenants CLI; each returns a new file value and throws a message for people. */
export class EditError extends Error {
  override name = 'EditError';
}

function account(file: TenantsFile, accountId: string) {
  const found = file.accounts.find((a) => a.id === accountId);
  if (found === undefined) throw new EditError(`no account "${accountId}" (see: list)`);
  return found;
}

function clone(file: TenantsFile): TenantsFile {
  return structuredClone(file);
}

export function addAccount(file: TenantsFile, accountId: string, rateLimit?: RateLimitRecord): TenantsFile {
  if (file.accounts.some((a) => a.id === accountId)) throw new EditError(`account "${accountId}" exists already`);
  const next = clone(file);
  next.accounts.push({ id: accountId, apiKeys: [], forms: [], ...(rateLimit === undefined ? {} : { rateLimit }) });
  return next;
}

export function addForm(file: TenantsFile, accountId: string, formId: string, allowedReferrers: string[]): TenantsFile {
  for (const a of file.accounts) {
    if (a.forms.some((f) => f.id === formId))
      throw new EditError(`form id "${formId}" is already used by account "${a.id}" (form ids are unique across the file)`);
  }
  const next = clone(file);
  account(next, accountId).forms.push({ id: formId, allowedReferrers });
  return next;
}

// Form ids are unique across the file: naming the other account beats a bare "no such form".
function form(file: TenantsFile, accountId: string, formId: string) {
  const found = account(file, accountId).forms.find((f) => f.id === formId);
  if (found !== undefined) return found;
  const owner = file.accounts.find((a) => a.forms.some((f) => f.id === formId));
  throw new EditError(
    owner === undefined
      ? `account "${accountId}" has no form "${formId}"`
      : `form "${formId}" belongs to account "${owner.id}", not "${accountId}"`,
  );
}

/** Replaces the form's referrer list; an empty list blocks every request to the form. */
export function setReferrers(file: TenantsFile, accountId: string, formId: string, allowedReferrers: string[]): TenantsFile {
  const next = clone(file);
  form(next, accountId, formId).allowedReferrers = [...allowedReferrers];
  return next;
}

export function removeForm(file: TenantsFile, accountId: string, formId: string): TenantsFile {
  const next = clone(file);
  form(next, accountId, formId);
  const a = account(next, accountId);
  a.forms = a.forms.filter((f) => f.id !== formId);
  return next;
}

/** Returns the new key in clear once; only its hash goes into the file. */
export function issueKey(
  file: TenantsFile,
  accountId: string,
  keyId?: string,
  now = new Date(),
): { file: TenantsFile; key: string; keyId: string } {
  const next = clone(file);
  const a = account(next, accountId);
  const id = keyId ?? `key-${now.toISOString().slice(0, 10)}-${Math.random().toString(36).slice(2, 6)}`;
  if (a.apiKeys.some((k) => k.id === id)) throw new EditError(`account "${accountId}" already has a key "${id}"`);
  const key = generateKey();
  a.apiKeys.push({ id, sha256: sha256Hex(key), createdAt: now.toISOString() });
  return { file: next, key, keyId: id };
}

export function revokeKey(file: TenantsFile, accountId: string, keyId: string): TenantsFile {
  const next = clone(file);
  const a = account(next, accountId);
  const before = a.apiKeys.length;
  a.apiKeys = a.apiKeys.filter((k) => k.id !== keyId);
  if (a.apiKeys.length === before) throw new EditError(`account "${accountId}" has no key "${keyId}"`);
  // The service refuses a file without keys and keeps the last good one, so this revocation would never take effect.
  if (next.accounts.every((x) => x.apiKeys.length === 0))
    throw new EditError(
      `revoking "${keyId}" would leave the file without any API key, which the service refuses (it would keep serving the old key); issue the replacement first (issue-key ${accountId}), then revoke this one`,
    );
  return next;
}

/**
 * A review-console sign-in token, returned in clear once like a key. With replace, an existing moderator
 * gets a new token instead (sessions opened with the old one end); without, an existing id is refused.
 */
export function addModerator(
  file: TenantsFile,
  accountId: string,
  moderatorId: string,
  opts: { replace?: boolean } = {},
): { file: TenantsFile; token: string } {
  const next = clone(file);
  const a = account(next, accountId);
  a.moderators ??= [];
  const at = a.moderators.findIndex((m) => m.id === moderatorId);
  if (opts.replace === true && at < 0)
    throw new EditError(`account "${accountId}" has no moderator "${moderatorId}" to replace (leave out --replace to add one)`);
  if (opts.replace !== true && at >= 0) {
    throw new EditError(`account "${accountId}" already has a moderator "${moderatorId}" (--replace gives them a new token)`);
  }
  const token = generateKey('fgm_');
  const entry = { id: moderatorId, sha256: sha256Hex(token), createdAt: new Date().toISOString() };
  if (at >= 0) a.moderators[at] = entry;
  else a.moderators.push(entry);
  return { file: next, token };
}

export function removeModerator(file: TenantsFile, accountId: string, moderatorId: string): TenantsFile {
  const next = clone(file);
  const a = account(next, accountId);
  const before = a.moderators?.length ?? 0;
  a.moderators = (a.moderators ?? []).filter((m) => m.id !== moderatorId);
  if (a.moderators.length === before) throw new EditError(`account "${accountId}" has no moderator "${moderatorId}"`);
  return next;
}
