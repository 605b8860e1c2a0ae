import { describe, expect, it } from 'vitest';
import {
  addAccount,
  addForm,
  addModerator,
  issueKey,
  removeForm,
  removeModerator,
  revokeKey,
  setReferrers,
} from '../../../service/tenants/edit.ts';
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
    const issued = issueKey(issueKey(addAccount({ accounts: [] }, 'acme'), 'acme', 'k0').file, 'acme', 'k1');
    const t = parseTenants(JSON.stringify(revokeKey(issued.file, 'acme', 'k1')), 'x');
    expect(t.keys.get(sha256Hex(issued.key))).toBeUndefined();
  });

  it('refuses to revoke the last key of the file, which the service would refuse to load', () => {
    const issued = issueKey(addAccount({ accounts: [] }, 'acme'), 'acme', 'k1');
    expect(() => revokeKey(issued.file, 'acme', 'k1')).toThrow(/issue the replacement first \(issue-key acme\)/);
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
    expect(parseTenants(JSON.stringify(added.file), 'x').moderators.get(sha256Hex(added.token))).toEqual({
      accountId: 'a',
      moderatorId: 'mia',
    });
  });

  it("replaces a form's referrers after add-form; an empty list blocks every origin", () => {
    const file = addForm(addAccount({ accounts: [] }, 'a'), 'a', 'f', []);
    const opened = parseTenants(JSON.stringify(setReferrers(file, 'a', 'f', ['example.com', '*.example.org'])), 'x');
    expect(opened.forms.get('f')?.allowsOrigin({ host: 'example.com', port: '' })).toBe(true);
    expect(opened.forms.get('f')?.allowsOrigin({ host: 'shop.example.org', port: '' })).toBe(true);
    const closed = parseTenants(JSON.stringify(setReferrers(setReferrers(file, 'a', 'f', ['example.com']), 'a', 'f', [])), 'x');
    expect(closed.forms.get('f')?.allowsOrigin({ host: 'example.com', port: '' })).toBe(false);
  });

  it("removes a form, leaving the account's other forms", () => {
    const file = addForm(addForm(addAccount({ accounts: [] }, 'a'), 'a', 'f', ['example.com']), 'a', 'g', ['example.com']);
    const t = parseTenants(JSON.stringify(removeForm(file, 'a', 'f')), 'x');
    expect([...t.forms.keys()]).toEqual(['g']);
  });

  it("refuses a form that is not the account's, naming its owner", () => {
    const file = addForm(addAccount(addAccount({ accounts: [] }, 'a'), 'b'), 'a', 'f', []);
    expect(() => setReferrers(file, 'b', 'f', ['example.com'])).toThrow(/form "f" belongs to account "a", not "b"/);
    expect(() => removeForm(file, 'a', 'nope')).toThrow(/account "a" has no form "nope"/);
    expect(() => removeForm(file, 'zzz', 'f')).toThrow(/no account "zzz"/);
  });

  it('gives an existing moderator a new token with replace: the old one no longer signs in', () => {
    const first = addModerator(addAccount({ accounts: [] }, 'a'), 'a', 'mia');
    expect(() => addModerator(first.file, 'a', 'mia')).toThrow(/already has a moderator "mia" \(--replace gives them a new token\)/);
    const second = addModerator(first.file, 'a', 'mia', { replace: true });
    expect(second.token).not.toBe(first.token);
    expect(JSON.stringify(second.file)).not.toContain(second.token);
    const t = parseTenants(JSON.stringify(second.file), 'x');
    expect(t.moderators.get(sha256Hex(first.token))).toBeUndefined();
    expect(t.moderators.get(sha256Hex(second.token))).toEqual({ accountId: 'a', moderatorId: 'mia' });
    expect(() => addModerator(first.file, 'a', 'max', { replace: true })).toThrow(/no moderator "max" to replace/);
  });

  it('removes a moderator and only that one', () => {
    const mia = addModerator(addAccount({ accounts: [] }, 'a'), 'a', 'mia');
    const max = addModerator(mia.file, 'a', 'max');
    const t = parseTenants(JSON.stringify(removeModerator(max.file, 'a', 'mia')), 'x');
    expect(t.moderators.get(sha256Hex(mia.token))).toBeUndefined();
    expect(t.moderators.get(sha256Hex(max.token))).toEqual({ accountId: 'a', moderatorId: 'max' });
    expect(() => removeModerator(max.file, 'a', 'nobody')).toThrow(/has no moderator "nobody"/);
    expect(() => removeModerator(addAccount({ accounts: [] }, 'b'), 'b', 'mia')).toThrow(/has no moderator "mia"/);
  });
});
