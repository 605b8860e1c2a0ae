import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TenantsStore } from '../../../service/tenants/store.ts';
import { sha256Hex } from '../../../service/tenants/key.ts';
import { ORIGIN, captureLogger, testApp, verifyBody } from '../helpers.ts';
import { tenantsFile } from '../../support/tenants.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-tenants-emptied-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a tenants edit that would lock every client out', () => {
  it.each([
    ['no accounts', { accounts: [] }],
    ['no API keys', { accounts: tenantsFile().accounts.map((a) => ({ ...a, apiKeys: [] })) }],
  ])(
    'is refused when it leaves %s: the last good configuration keeps serving, and the reason is logged at error level',
    async (what, emptied) => {
      const file = path.join(dir, 'tenants.json');
      await writeFile(file, JSON.stringify(tenantsFile()));
      const log = captureLogger();
      const store = await TenantsStore.open(file, log.logger);
      const app = await testApp({ tenants: store });
      try {
        await writeFile(file, JSON.stringify(emptied));
        const result = await store.reload();
        expect(result.kind).toBe('rejected');
        expect(result.kind === 'rejected' && result.reason).toContain(`leaves ${what}`);
        const line = log.lines.find((l) => l.msg === 'tenants file edit rejected; keeping the last good configuration');
        expect(line).toMatchObject({ level: 50, reason: expect.stringContaining(`leaves ${what}`) });
        expect((await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() })).statusCode).toBe(200);
      } finally {
        await app.close();
        store.close();
      }
    },
  );
});

describe('a tenants file without accounts or keys at start-up', () => {
  it.each([
    ['no accounts', { accounts: [] }],
    ['no API keys', { accounts: tenantsFile().accounts.map((a) => ({ ...a, apiKeys: [] })) }],
  ])(
    'starts with %s (nothing earlier to keep) and logs at error level that every verify request will be refused',
    async (what, emptied) => {
      const file = path.join(dir, 'tenants.json');
      await writeFile(file, JSON.stringify(emptied));
      const log = captureLogger();
      const store = await TenantsStore.open(file, log.logger);
      store.close();
      expect(log.lines.find((l) => l.msg === 'tenants file: every verify request will be refused')).toMatchObject({
        level: 50,
        reason: expect.stringContaining(`leaves ${what}`),
      });
    },
  );
});

describe('a tenants reload that makes a key valid again', () => {
  it('lets a client the failed-key guard blocked while its key was missing back in at once', async () => {
    const file = path.join(dir, 'tenants.json');
    const good = tenantsFile();
    await writeFile(file, JSON.stringify(good));
    const store = await TenantsStore.open(file, captureLogger().logger);
    const app = await testApp({ tenants: store, keyFailureRule: { max: 3, windowMs: 600_000, algorithm: 'fixed' } });
    try {
      // A bad edit that is valid on its face: acme's key replaced by another, so acme's clients get 401.
      const bad = tenantsFile();
      (bad.accounts[0] as { apiKeys: { id: string; sha256: string }[] }).apiKeys = [
        { id: 'other', sha256: sha256Hex('some-other-key-0123456789') },
      ];
      await writeFile(file, JSON.stringify(bad));
      expect((await store.reload()).kind).toBe('reloaded');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() })).statusCode);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);

      await writeFile(file, JSON.stringify(good));
      expect((await store.reload()).kind).toBe('reloaded');
      const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: verifyBody() });
      expect(res.statusCode).toBe(200);
      // Guessing still counts afresh: the guard is not switched off, only its counts for the old key set dropped.
      const wrong = [];
      for (let i = 0; i < 4; i++)
        wrong.push(
          (
            await app.inject({
              method: 'POST',
              url: '/v1/verify',
              headers: ORIGIN,
              payload: verifyBody({ apiKey: 'wrong-key-0123456789' }),
            })
          ).statusCode,
        );
      expect(wrong).toEqual([401, 401, 401, 429]);
    } finally {
      await app.close();
      store.close();
    }
  });
});
