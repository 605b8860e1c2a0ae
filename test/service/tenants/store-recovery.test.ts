import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TenantsStore } from '../../../service/tenants/store.ts';
import { captureLogger } from '../helpers.ts';
import { tenantsFile } from '../../support/tenants.ts';

const REJECTED = 'tenants file edit rejected; keeping the last good configuration';
const VALID_AGAIN = 'tenants file is valid again; keeping the current configuration';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-recovery-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A store opened on a valid tenants file, with its log captured. */
async function openValidFile() {
  const file = path.join(dir, 'tenants.json');
  const good = JSON.stringify(tenantsFile());
  await writeFile(file, good);
  const capture = captureLogger();
  return { file, good, capture, store: await TenantsStore.open(file, capture.logger) };
}

describe('tenants file restored after a rejected edit', () => {
  it('logs that the file is valid again, after the rejection, and keeps serving the same tenants', async () => {
    const { file, good, capture, store } = await openValidFile();
    const before = store.current;

    await writeFile(file, good.slice(0, -1)); // the closing brace lost in an edit
    expect((await store.reload()).kind).toBe('rejected');
    await writeFile(file, good); // the operator undoes it
    await store.reload();

    const msgs = capture.lines.map((l) => l.msg);
    expect(msgs.slice(-2)).toEqual([REJECTED, VALID_AGAIN]);
    const last = capture.lines.at(-1);
    expect(last?.level).toBe(30); // info
    expect(last?.tenantsFile).toBe(file);
    expect(store.current).toBe(before);
    expect(store.current.forms.has('contact')).toBe(true);
  });

  it('stays quiet when the file is re-saved unchanged with no rejection before', async () => {
    const { file, good, capture, store } = await openValidFile();
    await writeFile(file, good);
    expect((await store.reload()).kind).toBe('unchanged');
    // Once recovered, a further unchanged save is quiet again.
    await writeFile(file, '{');
    await store.reload();
    await writeFile(file, good);
    await store.reload();
    await store.reload();
    expect(capture.lines.map((l) => l.msg)).toEqual([REJECTED, VALID_AGAIN]);
  });
});
