import { describe, expect, it } from 'vitest';
import { addAccount, addForm, addModerator, issueKey, revokeKey } from '../../../service/tenants/edit.ts';
import { sha256Hex } from '../../../service/tenants/key.ts';
import { parseTenants } from '../../../service/tenants/load.ts';

describe('tenants edits', () => {
  it('builds a valid file: account, form, key; stores only the key hash', () => {
    let file = addAccount({ accounts: [] }, 'acme', { max: 100, windowSeconds: 60, algorithm: 'fixed' });
    file = addForm(file, 'acme', 'contact', ['example.com']);
    const issued = issueKey(file, 'acme', 'primary');
    expect(JSON.stringify(issued.file)).not.toContain(issued.key);
    const t = parseTenants(JSON.stringify(issued.file), 'x');
    expect(t.keys.get(sha256Hex(issued.key))).toEqual({ accountId: 'acme', keyId: 'primary' });
    expect(t.forms.get('contact')?.accountId).toBe('acme');
  });

  it('issues a different key each time', () => {
    const file = addAccount({ accounts: [] }, 'acme');
    expect(issueKey(file, 'acme').key).not.toBe(issueKey(file, 'acme').key);
  });

  it('revokes a key so it no longer opens anything', () => {
    const issued = issueKey(addAccount({ accounts: [] }, 'acme'), 'acme', 'k1');
    const t = parseTenants(JSON.stringify(revokeKey(issued.file, 'acme', 'k1')), 'x');
    expect(t.keys.get(sha256Hex(issued.key))).toBeUndefined();
  });

  it('refuses duplicates and unknown names with a message for people', () => {
    const file = addForm(addAccount(addAccount({ accounts: [] }, 'a'), 'b'), 'a', 'f', []);
    expect(() => addAccount(file, 'a')).toThrow(/exists already/);
    expect(() => addForm(file, 'b', 'f', [])).toThrow(/already used by account "a"/);
    expect(() => issueKey(file, 'zzz')).toThrow(/no account "zzz"/);
    expect(() => revokeKey(file, 'a', 'nope')).toThrow(/has no key "nope"/);
  });

  it('adds a moderator token, stored as a hash', () => {
    const added = addModerator(addAccount({ accounts: [] }, 'a'), 'a', 'mia');
    expect(parseTenants(JSON.stringify(added.file), 'x').moderators.get(sha256Hex(added.token))).toEqual({ accountId: 'a', moderatorId: 'mia' });
  });
});
