import { compileOriginMatcher, type OriginMatcher } from '../origin/matcher.ts';
import type { RateRule } from '../rate-limit/types.ts';
import { DEFAULT_RATE_LIMIT, type TenantsFile } from './schema.ts';

export interface KeyOwner {
  readonly accountId: string;
  readonly keyId: string;
}

export interface CompiledForm {
  readonly id: string;
  readonly accountId: string;
  readonly allowsOrigin: OriginMatcher;
}

export interface CompiledAccount {
  readonly id: string;
  readonly rateLimit: RateRule;
  /** The account's review band and sample rate, where the tenants file sets them. */
  readonly review?: { readonly band?: number | undefined; readonly sampleRate?: number | undefined } | undefined;
}

/** The tenants file turned into lookups the request path can use in O(1). */
export interface Tenants {
  readonly keys: ReadonlyMap<string, KeyOwner>;
  readonly forms: ReadonlyMap<string, CompiledForm>;
  readonly accounts: ReadonlyMap<string, CompiledAccount>;
  /** Review-console tokens by SHA-256: who may sign in for which account. */
  readonly moderators: ReadonlyMap<string, { readonly accountId: string; readonly moderatorId: string }>;
  readonly file: TenantsFile;
}

export class TenantsError extends Error {
  override name = 'TenantsError';
}

/** Checks what the schema cannot (uniqueness) and builds the lookups; errors name the place in the file. */
export function compileTenants(file: TenantsFile): Tenants {
  const problems: string[] = [];
  const accounts = new Map<string, CompiledAccount>();
  const keys = new Map<string, KeyOwner>();
  const forms = new Map<string, CompiledForm>();
  const moderators = new Map<string, { accountId: string; moderatorId: string }>();
  const accountAt = new Map<string, string>();
  const formAt = new Map<string, string>();
  const hashAt = new Map<string, string>();

  file.accounts.forEach((account, a) => {
    const here = `accounts[${a}]`;
    const seen = accountAt.get(account.id);
    if (seen !== undefined) problems.push(`${here}.id: account id "${account.id}" is already used by ${seen}`);
    accountAt.set(account.id, here);
    const rule = account.rateLimit ?? DEFAULT_RATE_LIMIT;
    accounts.set(account.id, {
      id: account.id,
      rateLimit: { max: rule.max, windowMs: rule.windowSeconds * 1000, algorithm: rule.algorithm ?? DEFAULT_RATE_LIMIT.algorithm },
      review: account.review,
    });

    const keyIds = new Set<string>();
    account.apiKeys.forEach((key, k) => {
      const at = `${here}.apiKeys[${k}]`;
      if (keyIds.has(key.id)) problems.push(`${at}.id: key id "${key.id}" is used twice in account "${account.id}"`);
      keyIds.add(key.id);
      const hash = key.sha256.toLowerCase();
      const other = hashAt.get(hash);
      if (other !== undefined) problems.push(`${at}.sha256: the same key hash is already at ${other}`);
      hashAt.set(hash, at);
      keys.set(hash, { accountId: account.id, keyId: key.id });
    });

    account.moderators?.forEach((m, i) => {
      const at = `${here}.moderators[${i}]`;
      const hash = m.sha256.toLowerCase();
      const other = hashAt.get(hash);
      if (other !== undefined) problems.push(`${at}.sha256: the same hash is already at ${other}`);
      hashAt.set(hash, at);
      moderators.set(hash, { accountId: account.id, moderatorId: m.id });
    });

    account.forms.forEach((form, f) => {
      const at = `${here}.forms[${f}]`;
      const other = formAt.get(form.id);
      if (other !== undefined) problems.push(`${at}.id: form id "${form.id}" is already used by ${other}`);
      formAt.set(form.id, at);
      forms.set(form.id, { id: form.id, accountId: account.id, allowsOrigin: compileOriginMatcher(form.allowedReferrers) });
    });
  });

  if (problems.length > 0) throw new TenantsError(problems.join('\n'));
  return { keys, forms, accounts, moderators, file };
}
