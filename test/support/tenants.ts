import { sha256Hex } from '../../service/tenants/key.ts';
import type { TenantsFile } from '../../service/tenants/schema.ts';

/** acme's API key and globex's. */
export const KEY = 'test-key-acme-0123456789';
export const OTHER_KEY = 'test-key-globex-0123456789';
/** The moderators' tokens: alice of acme, gina of globex. */
export const ACME_TOKEN = 'acme-moderator-token-4f1b2c9d8e7a';
export const GLOBEX_TOKEN = 'globex-moderator-token-0a9b8c7d6e5f';

/**
 * The tests' tenants file: acme (forms contact, open to any origin, newsletter; moderator alice) and globex (one form;
 * moderator gina). `rateLimit` sets acme's; `moderators: false` leaves both without moderators (no console sign-in).
 */
export function tenantsFile(opts: { rateLimit?: TenantsFile['accounts'][number]['rateLimit']; moderators?: boolean } = {}): TenantsFile {
  const withModerators = opts.moderators ?? true;
  return {
    accounts: [
      {
        id: 'acme',
        apiKeys: [{ id: 'primary', sha256: sha256Hex(KEY) }],
        ...(opts.rateLimit === undefined ? {} : { rateLimit: opts.rateLimit }),
        forms: [
          { id: 'contact', allowedReferrers: ['example.com', '*.example.org', 'localhost:8080'] },
          { id: 'open', allowedReferrers: ['*'] },
          { id: 'newsletter', allowedReferrers: ['example.com'] },
        ],
        ...(withModerators ? { moderators: [{ id: 'alice', sha256: sha256Hex(ACME_TOKEN) }] } : {}),
      },
      {
        id: 'globex',
        apiKeys: [{ id: 'main', sha256: sha256Hex(OTHER_KEY) }],
        forms: [{ id: 'globex-form', allowedReferrers: ['globex.test'] }],
        ...(withModerators ? { moderators: [{ id: 'gina', sha256: sha256Hex(GLOBEX_TOKEN) }] } : {}),
      },
    ],
  };
}
