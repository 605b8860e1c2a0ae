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
    if (a.forms.some((f) => f.id === formId)) throw new EditError(`form id "${formId}" is already used by account "${a.id}" (form ids are unique across the file)`);
  }
  const next = clone(file);
  account(next, accountId).forms.push({ id: formId, allowedReferrers });
  return next;
}

/** Returns the new key in clear once; only its hash goes into the file. */
export function issueKey(file: TenantsFile, accountId: string, keyId?: string, now = new Date()): { file: TenantsFile; key: string; keyId: string } {
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
  return next;
}

/** A review-console sign-in token, returned in clear once like a key. */
export function addModerator(file: TenantsFile, accountId: string, moderatorId: string): { file: TenantsFile; token: string } {
  const next = clone(file);
  const a = account(next, accountId);
  a.moderators ??= [];
  if (a.moderators.some((m) => m.id === moderatorId)) throw new EditError(`account "${accountId}" already has a moderator "${moderatorId}"`);
  const token = generateKey('fgm_');
  a.moderators.push({ id: moderatorId, sha256: sha256Hex(token), createdAt: new Date().toISOString() });
  return { file: next, token };
}
