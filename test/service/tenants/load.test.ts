import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../service/tenants/key.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { tenantsFile } from '../../support/tenants.ts';

const parse = (value: unknown) => () => parseTenants(JSON.stringify(value), 'tenants.json');
const hash = sha256Hex('k');

describe('tenants file', () => {
  it('compiles keys (by hash), forms and accounts, with the default rate limit when none is given', () => {
    const t = parseTenants(JSON.stringify(tenantsFile()), 'x');
    expect(t.keys.get(sha256Hex('test-key-acme-0123456789'))).toEqual({ accountId: 'acme', keyId: 'primary' });
    expect(t.forms.get('contact')?.accountId).toBe('acme');
    expect(t.accounts.get('acme')?.rateLimit).toEqual({ max: 600, windowMs: 60_000, algorithm: 'sliding' });
  });

  it('accepts the exact shape of the issue', () => {
    const t = parseTenants(
      JSON.stringify({
        accounts: [
          {
            id: 'acme',
            apiKeys: [{ id: 'primary', sha256: hash }],
            rateLimit: { max: 600, windowSeconds: 60 },
            forms: [{ id: 'contact', allowedReferrers: ['example.com', '*.example.org', 'localhost:8080'] }],
          },
        ],
      }),
      'x',
    );
    expect(t.accounts.get('acme')?.rateLimit.max).toBe(600);
  });

  it('accepts moderators and indexes them by hash', () => {
    const t = parseTenants(
      JSON.stringify({ accounts: [{ id: 'a', apiKeys: [], forms: [], moderators: [{ id: 'mia', sha256: sha256Hex('tok') }] }] }),
      'x',
    );
    expect(t.moderators.get(sha256Hex('tok'))).toEqual({ accountId: 'a', moderatorId: 'mia' });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    [
      'duplicate form ids across accounts',
      {
        accounts: [
          { id: 'a', apiKeys: [], forms: [{ id: 'f', allowedReferrers: [] }] },
          { id: 'b', apiKeys: [], forms: [{ id: 'f', allowedReferrers: [] }] },
        ],
      },
      /accounts\[1\]\.forms\[0\]\.id: form id "f" is already used by accounts\[0\]\.forms\[0\]/,
    ],
    [
      'malformed hash',
      { accounts: [{ id: 'a', apiKeys: [{ id: 'k', sha256: 'abc' }], forms: [] }] },
      /accounts\[0\]\.apiKeys\[0\]\.sha256: .*SHA-256/,
    ],
    [
      'unknown field (typo)',
      { accounts: [{ id: 'a', apiKeys: [], forms: [{ id: 'f', allowedReferers: [] }] }] },
      /accounts\[0\]\.forms\[0\]/,
    ],
    ['accounts not an array', { accounts: {} }, /accounts: /],
    ['missing accounts', {}, /accounts: /],
    [
      'bad referrer entry',
      { accounts: [{ id: 'a', apiKeys: [], forms: [{ id: 'f', allowedReferrers: ['https://x.com/'] }] }] },
      /accounts\[0\]\.forms\[0\]\.allowedReferrers\[0\]/,
    ],
    [
      'duplicate account ids',
      {
        accounts: [
          { id: 'a', apiKeys: [], forms: [] },
          { id: 'a', apiKeys: [], forms: [] },
        ],
      },
      /accounts\[1\]\.id: account id "a"/,
    ],
    [
      'one key hash in two places',
      {
        accounts: [
          { id: 'a', apiKeys: [{ id: 'k', sha256: hash }], forms: [] },
          { id: 'b', apiKeys: [{ id: 'k', sha256: hash }], forms: [] },
        ],
      },
      /accounts\[1\]\.apiKeys\[0\]\.sha256: the same key hash is already at accounts\[0\]\.apiKeys\[0\]/,
    ],
    [
      'bad rate limit',
      { accounts: [{ id: 'a', apiKeys: [], forms: [], rateLimit: { max: 0, windowSeconds: 60 } }] },
      /accounts\[0\]\.rateLimit\.max/,
    ],
    [
      'unknown algorithm',
      { accounts: [{ id: 'a', apiKeys: [], forms: [], rateLimit: { max: 5, windowSeconds: 60, algorithm: 'token-bucket' } }] },
      /accounts\[0\]\.rateLimit\.algorithm/,
    ],
  ];
  it.each(bad)('rejects %s, naming the place', (_name, value, message) => {
    expect(parse(value)).toThrow(message);
  });

  it('rejects text that is not JSON, naming the file', () => {
    expect(() => parseTenants('{"accounts": [', 'conf/tenants.json')).toThrow(/conf\/tenants\.json: not valid JSON/);
  });
});
