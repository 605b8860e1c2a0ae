import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../core/fs/repo-root.ts';
import { loadTenantsFile, parseTenants } from '../../../../service/tenants/load.ts';
import type { TenantsFile } from '../../../../service/tenants/schema.ts';
import { ACME_TOKEN, GLOBEX_TOKEN, tenantsFile } from '../../../support/tenants.ts';
import { JSON_HEADERS, reviewApp, signIn as signInAs, type ReviewAppFixture } from '../app-fixture.ts';
import { sha256 } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const run = promisify(execFile);
const json = JSON_HEADERS;
const NEW_ACME_TOKEN = 'acme-moderator-token-rotated-77c3e1a0';

let f: ReviewAppFixture;
let original: ReviewAppFixture['tenants']['current'];

beforeAll(async () => {
  f = await reviewApp();
  original = f.tenants.current;
});
afterEach(() => {
  f.tenants.current = original;
});
afterAll(async () => {
  await f.close();
});

const signIn = (token: string): Promise<string> => signInAs(f.app, token);

async function me(cookie: string): Promise<number> {
  return (await f.app.inject({ method: 'GET', url: '/review/api/me', headers: { cookie } })).statusCode;
}

/** What the tenants store does on a hot reload: the edited file becomes the current configuration. */
function reload(edit: (file: TenantsFile) => void): void {
  const file = tenantsFile();
  edit(file);
  f.tenants.current = parseTenants(JSON.stringify(file), 'edited');
}

function setAcmeModerators(file: TenantsFile, moderators: { id: string; sha256: string }[]): void {
  file.accounts[0] = { ...file.accounts[0]!, moderators };
}

describe('a console session is bound to the token it was opened with', () => {
  it("ends once the moderator's token hash is replaced in the file; the new token signs in; others keep working", async () => {
    const alice = await signIn(ACME_TOKEN);
    const gina = await signIn(GLOBEX_TOKEN);
    expect(await me(alice)).toBe(200);

    reload((file) => setAcmeModerators(file, [{ id: 'alice', sha256: sha256(NEW_ACME_TOKEN) }]));
    expect(await me(alice)).toBe(401);
    expect(await me(gina)).toBe(200);
    const fresh = await signIn(NEW_ACME_TOKEN);
    expect(await me(fresh)).toBe(200);
    const stale = await f.app.inject({ method: 'POST', url: '/review/api/session', headers: json, payload: { token: ACME_TOKEN } });
    expect(stale.statusCode).toBe(401);
  });

  it('stays ended when the moderator is removed and added back under the same id with a new token', async () => {
    const alice = await signIn(ACME_TOKEN);
    reload((file) => setAcmeModerators(file, []));
    expect(await me(alice)).toBe(401);
    reload((file) => setAcmeModerators(file, [{ id: 'alice', sha256: sha256(NEW_ACME_TOKEN) }]));
    expect(await me(alice)).toBe(401);
  });

  it('ends when `npm run tenants -- add-moderator --replace` gives the moderator a new token', async () => {
    const dir = await tempDir('rotation');
    try {
      const file = path.join(dir.dir, 'tenants.json');
      await writeFile(file, JSON.stringify(tenantsFile()), { mode: 0o600 });
      const alice = await signIn(ACME_TOKEN);
      const gina = await signIn(GLOBEX_TOKEN);
      const cli = path.join(repoRoot, 'cli/tenants.ts');
      const out = await run(process.execPath, ['--import', 'tsx', cli, 'add-moderator', 'acme', 'alice', '--replace', '--file', file], {
        cwd: repoRoot,
      });
      const token = /moderator token: (\S+)/.exec(out.stdout)?.[1] ?? '';
      f.tenants.current = (await loadTenantsFile(file)).tenants;

      expect(await me(alice)).toBe(401);
      expect(await me(gina)).toBe(200);
      const res = await f.app.inject({ method: 'POST', url: '/review/api/session', headers: json, payload: { token } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ accountId: 'acme', moderatorId: 'alice' });
    } finally {
      await dir.remove();
    }
  });
});
