import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { loadTenantsFile } from '../../service/tenants/load.ts';
import { stubClassifier, testApp } from '../service/helpers.ts';

const run = promisify(execFile);
let dir: string;
let file: string;

function tenantsCli(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'cli/tenants.ts'), ...args, '--file', file], { cwd: repoRoot });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-cli-'));
  file = path.join(dir, 'tenants.json');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function verifyWith(apiKey: string) {
  const app = await testApp({ tenants: { current: (await loadTenantsFile(file)).tenants }, classifier: stubClassifier() });
  const res = await app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { origin: 'https://shop.example' },
    payload: { apiKey, formId: 'signup', payload: { a: 'b' } },
  });
  await app.close();
  return res.statusCode;
}

describe('npm run tenants', () => {
  it('adds an account and a form, issues a key printed once that works, lists, revokes it', async () => {
    await tenantsCli('add-account', 'shop', '--max', '100', '--window', '60', '--algorithm', 'fixed');
    await tenantsCli('add-form', 'shop', 'signup', '--referrer', 'shop.example', '--referrer', '*.shop.example');
    const issued = await tenantsCli('issue-key', 'shop', '--id', 'web');
    const key = /key:\s+(\S+)/.exec(issued.stdout)?.[1] ?? '';
    expect(key).toMatch(/^fg_[A-Za-z0-9_-]{40,}$/);
    expect(await readFile(file, 'utf8')).not.toContain(key);
    expect(await verifyWith(key)).toBe(200);

    const listed = await tenantsCli('list');
    expect(listed.stdout).toContain('shop  (100/60s fixed)');
    expect(listed.stdout).toContain('keys: web');
    expect(listed.stdout).toContain('form signup: shop.example, *.shop.example');
    expect(listed.stdout).not.toContain(key);

    // The only key cannot go: the service would refuse a file without keys and keep serving this one.
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('revoke-key', 'shop', 'web')).rejects.toMatchObject({
      stderr: expect.stringContaining('issue the replacement first (issue-key shop)'),
    });
    expect(await readFile(file, 'utf8')).toBe(before);
    await tenantsCli('issue-key', 'shop', '--id', 'spare');
    await tenantsCli('revoke-key', 'shop', 'web');
    expect(await verifyWith(key)).toBe(401);
  });

  it('add-account creates the file and its missing folder, as in a fresh clone without tenants/', async () => {
    const nested = path.join(dir, 'fresh', 'tenants', 'tenants.json');
    await run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'cli/tenants.ts'), 'add-account', 'acme', '--file', nested], {
      cwd: repoRoot,
    });
    expect(JSON.parse((await loadTenantsFile(nested)).text).accounts.map((a: { id: string }) => a.id)).toEqual(['acme']);
  });

  it('refuses a bad referrer entry without touching the file', async () => {
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('add-form', 'shop', 'other', '--referrer', 'https://shop.example/')).rejects.toMatchObject({
      stderr: expect.stringMatching(/allowedReferrers\[0\]/),
    });
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('answers a malformed command line with exit 2 naming what is wrong, changing nothing', async () => {
    const before = await readFile(file, 'utf8');
    await expect(tenantsCli('add-account', 'other', '--max', 'abc')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--max must be a whole number/),
    });
    await expect(tenantsCli('add-account', 'other', '--algorithm', 'leaky')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--algorithm must be fixed or sliding, got "leaky"/),
    });
    await expect(tenantsCli('add-account', 'other', '--maks', '5')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Unknown option '--maks'[\s\S]*Usage:/),
    });
    await expect(tenantsCli('add-form', 'shop')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/missing <formId>/) });
    await expect(tenantsCli()).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/a command is needed/) });
    await expect(tenantsCli('remove-everything')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown command "remove-everything"/),
    });
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('answers what cannot be done to the file with exit 1', async () => {
    await expect(tenantsCli('add-form', 'nobody', 'x')).rejects.toMatchObject({ code: 1 });
  });
});
