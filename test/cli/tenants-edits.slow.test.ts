import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { loadTenantsFile } from '../../service/tenants/load.ts';
import { stubClassifier, testApp } from '../service/helpers.ts';

const run = promisify(execFile);
let dir: string;
let file: string;
let key: string;

function tenantsCli(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'cli/tenants.ts'), ...args, '--file', file], { cwd: repoRoot });
}

async function verify(formId: string, origin: string) {
  const app = await testApp({ tenants: { current: (await loadTenantsFile(file)).tenants }, classifier: stubClassifier() });
  const res = await app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { origin },
    payload: { apiKey: key, formId, payload: { a: 'b' } },
  });
  await app.close();
  return res.statusCode;
}

async function moderatorIds(): Promise<Map<string, string>> {
  const { tenants } = await loadTenantsFile(file);
  return new Map([...tenants.moderators].map(([hash, m]) => [m.moderatorId, hash]));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-cli-edits-'));
  file = path.join(dir, 'tenants.json');
  await tenantsCli('add-account', 'shop');
  await tenantsCli('add-account', 'other');
  key = /key:\s+(\S+)/.exec((await tenantsCli('issue-key', 'shop', '--id', 'web')).stdout)?.[1] ?? '';
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm run tenants: changing forms', () => {
  it('set-referrers opens a form added without referrers, replaces the list, and with none blocks it again, saying so', async () => {
    const added = await tenantsCli('add-form', 'shop', 'signup');
    expect(added.stdout).toMatch(/every request will be blocked; set-referrers adds some/);
    expect(await verify('signup', 'https://shop.example')).toBe(403);

    await tenantsCli('set-referrers', 'shop', 'signup', '--referrer', 'shop.example', '--referrer', '*.shop.example');
    expect(await verify('signup', 'https://shop.example')).toBe(200);
    expect(await verify('signup', 'https://www.shop.example')).toBe(200);
    expect((await tenantsCli('list')).stdout).toContain('form signup: shop.example, *.shop.example');

    await tenantsCli('set-referrers', 'shop', 'signup', '--referrer', 'new.example');
    expect(await verify('signup', 'https://shop.example')).toBe(403);
    expect(await verify('signup', 'https://new.example')).toBe(200);

    const none = await tenantsCli('set-referrers', 'shop', 'signup');
    expect(none.stdout).toMatch(/allows no referrer now: every request to it will be blocked/);
    expect(await verify('signup', 'https://new.example')).toBe(403);
  });

  it('remove-form removes the form: its requests are answered "form not found"', async () => {
    await tenantsCli('add-form', 'shop', 'old-form', '--referrer', 'shop.example');
    expect(await verify('old-form', 'https://shop.example')).toBe(200);
    await tenantsCli('remove-form', 'shop', 'old-form');
    expect(await verify('old-form', 'https://shop.example')).toBe(404);
    expect((await tenantsCli('list')).stdout).not.toContain('old-form');
  });

  it("refuses another account's form, an unknown form and a bad entry with exit 1, leaving the file as it was", async () => {
    await tenantsCli('add-form', 'other', 'theirs', '--referrer', 'other.example');
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('set-referrers', 'shop', 'theirs', '--referrer', 'shop.example')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/form "theirs" belongs to account "other", not "shop"/),
    });
    await expect(tenantsCli('remove-form', 'shop', 'theirs')).rejects.toMatchObject({ code: 1 });
    await expect(tenantsCli('remove-form', 'shop', 'nope')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/has no form "nope"/),
    });
    await expect(tenantsCli('set-referrers', 'other', 'theirs', '--referrer', 'https://other.example/')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/allowedReferrers\[0\]/),
    });
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('npm run tenants: changing moderators', () => {
  it('add-moderator --replace prints a new token once and stores only its hash in place of the old one', async () => {
    const first = /moderator token: (\S+)/.exec((await tenantsCli('add-moderator', 'shop', 'mia')).stdout)?.[1] ?? '';
    await tenantsCli('add-moderator', 'shop', 'max');
    expect((await moderatorIds()).get('mia')).toBe(sha256Hex(first));

    const replaced = await tenantsCli('add-moderator', 'shop', 'mia', '--replace');
    const second = /moderator token: (\S+)/.exec(replaced.stdout)?.[1] ?? '';
    expect(second).toMatch(/^fgm_[A-Za-z0-9_-]{40,}$/);
    expect(second).not.toBe(first);
    expect(replaced.stdout).toMatch(/old token end at their next request/);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(second);
    const ids = await moderatorIds();
    expect(ids.get('mia')).toBe(sha256Hex(second));
    expect([...ids.values()]).not.toContain(sha256Hex(first));
    expect(ids.has('max')).toBe(true);
  });

  it('remove-moderator removes one moderator; add-moderator on a taken id points at --replace', async () => {
    await tenantsCli('add-moderator', 'other', 'olga');
    await expect(tenantsCli('add-moderator', 'other', 'olga')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--replace gives them a new token/),
    });
    await tenantsCli('remove-moderator', 'other', 'olga');
    expect((await moderatorIds()).has('olga')).toBe(false);
    expect((await tenantsCli('list')).stdout).not.toContain('olga');
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('remove-moderator', 'other', 'olga')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/has no moderator "olga"/),
    });
    await expect(tenantsCli('add-moderator', 'other', 'olga', '--replace')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no moderator "olga" to replace/),
    });
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('answers a malformed command line for the new commands with exit 2 and the usage', async () => {
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('set-referrers', 'shop')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/missing <formId>[\s\S]*Usage:/),
    });
    await expect(tenantsCli('remove-form', 'shop')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/missing <formId>/) });
    await expect(tenantsCli('remove-moderator', 'shop')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/missing <moderatorId>/),
    });
    await expect(tenantsCli('issue-key', 'shop', '--replace')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--replace goes with add-moderator only/),
    });
    await expect(tenantsCli('add-moderator', 'shop', 'mia', '--replace=yes')).rejects.toMatchObject({ code: 2 });
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
