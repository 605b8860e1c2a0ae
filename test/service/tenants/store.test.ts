import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TenantsError } from '../../../service/tenants/compile.ts';
import { TenantsStore } from '../../../service/tenants/store.ts';
import { KEY, tenantsFile } from '../../support/tenants.ts';
import { captureLogger, testApp } from '../helpers.ts';
import { until } from '../../support/until.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-tenants-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The store picks up the change within 5 s. */
const reloaded = (check: () => boolean) => until(check, 'the store to reload', 5_000);

describe('tenants store', () => {
  it('refuses to open a missing or bad file, naming it', async () => {
    const log = captureLogger().logger;
    await expect(TenantsStore.open(path.join(dir, 'nope.json'), log)).rejects.toThrow(
      /nope\.json: cannot read the tenants file \(ENOENT\)/,
    );
    await writeFile(path.join(dir, 'bad.json'), '{"accounts": 3}');
    await expect(TenantsStore.open(path.join(dir, 'bad.json'), log)).rejects.toBeInstanceOf(TenantsError);
  });

  it('follows an edit without a restart, also when the file is replaced by rename', async () => {
    const file = path.join(dir, 'tenants.json');
    const data = tenantsFile();
    await writeFile(file, JSON.stringify(data));
    const store = await TenantsStore.open(file, captureLogger().logger);
    store.watch(20);
    expect(store.current.forms.has('new-form')).toBe(false);

    data.accounts[0]?.forms.push({ id: 'new-form', allowedReferrers: ['new.example'] });
    await writeFile(file, JSON.stringify(data));
    await reloaded(() => store.current.forms.has('new-form'));

    data.accounts[0]?.forms.push({ id: 'renamed-in', allowedReferrers: ['*'] });
    await writeFile(path.join(dir, 'tmp.json'), JSON.stringify(data));
    await rename(path.join(dir, 'tmp.json'), file);
    await reloaded(() => store.current.forms.has('renamed-in'));

    // The CLI replaces the file by rename every time: a second rename must be seen too (a watch on the old inode would miss it).
    data.accounts[0]?.forms.push({ id: 'renamed-again', allowedReferrers: ['*'] });
    await writeFile(path.join(dir, 'tmp.json'), JSON.stringify(data));
    await rename(path.join(dir, 'tmp.json'), file);
    await reloaded(() => store.current.forms.has('renamed-again'));
    store.close();
  });

  it('follows a Kubernetes ConfigMap update, which swaps a ..data symlink and never names the file', async () => {
    // The layout the kubelet writes: tenants.json -> ..data/tenants.json, ..data -> ..<timestamp>/.
    const data = tenantsFile();
    await mkdir(path.join(dir, '..v1'));
    await writeFile(path.join(dir, '..v1', 'tenants.json'), JSON.stringify(data));
    await symlink('..v1', path.join(dir, '..data'));
    await symlink(path.join('..data', 'tenants.json'), path.join(dir, 'tenants.json'));
    const store = await TenantsStore.open(path.join(dir, 'tenants.json'), captureLogger().logger);
    store.watch(20);
    try {
      data.accounts[0]?.forms.push({ id: 'configmap-form', allowedReferrers: ['new.example'] });
      await mkdir(path.join(dir, '..v2'));
      await writeFile(path.join(dir, '..v2', 'tenants.json'), JSON.stringify(data));
      await symlink('..v2', path.join(dir, '..data_tmp'));
      await rename(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
      await rm(path.join(dir, '..v1'), { recursive: true });
      await reloaded(() => store.current.forms.has('configmap-form'));
    } finally {
      store.close();
    }
  });

  it('keeps the last good configuration after an invalid edit and logs why', async () => {
    const file = path.join(dir, 'tenants.json');
    await writeFile(file, JSON.stringify(tenantsFile()));
    const capture = captureLogger();
    const store = await TenantsStore.open(file, capture.logger);
    await writeFile(file, JSON.stringify({ accounts: [{ id: 'acme', apiKeys: [{ id: 'k', sha256: 'not-a-hash' }], forms: [] }] }));
    const result = await store.reload();
    expect(result.kind).toBe('rejected');
    expect(store.current.forms.has('contact')).toBe(true);
    const line = capture.lines.find((l) => l.msg === 'tenants file edit rejected; keeping the last good configuration');
    expect(String(line?.reason)).toMatch(/accounts\[0\]\.apiKeys\[0\]\.sha256/);
  });
});

describe('the running app follows the tenants file', () => {
  it('accepts a form added to the file without a restart', async () => {
    const file = path.join(dir, 'tenants.json');
    const data = tenantsFile();
    await writeFile(file, JSON.stringify(data));
    const store = await TenantsStore.open(file, captureLogger().logger);
    store.watch(20);
    const app = await testApp({ tenants: store });
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: { origin: 'https://late.example' },
        payload: { apiKey: KEY, formId: 'late', payload: { a: 'b' } },
      });
    expect((await send()).statusCode).toBe(404);
    data.accounts[0]?.forms.push({ id: 'late', allowedReferrers: ['late.example'] });
    await writeFile(file, JSON.stringify(data));
    await reloaded(() => store.current.forms.has('late'));
    expect((await send()).statusCode).toBe(200);
    await app.close();
    store.close();
  });
});
