import type * as Fs from 'node:fs/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addAccount } from '../../../service/tenants/edit.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { writeTenants } from '../../../service/tenants/write.ts';

// A power loss cannot be faked here; what can be checked is the order of the calls that make a replacement durable:
// the new content fsync'd before the rename, the folder fsync'd after it. The calls still do their work.
const events = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof Fs>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = () => {
        events.push(`fsync ${String(args[0])}`);
        return sync();
      };
      return handle;
    },
    rename: (from: string, to: string) => {
      events.push(`rename ${from} -> ${to}`);
      return real.rename(from, to);
    },
  };
});

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'fg-tenants-write-'));
  events.length = 0;
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** The events with the temporary file's random part taken out. */
function seen(): string[] {
  return events.map((e) => e.replace(/\.tenants\.json\.[0-9a-f]{8}\.tmp/g, '.tenants.json.TMP.tmp'));
}

describe('writeTenants', () => {
  it('fsyncs the new content before the rename and the folder after it, and a new folder in its parent', async () => {
    const dir = path.join(root, 'tenants');
    const file = path.join(dir, 'tenants.json');
    const tmp = path.join(dir, '.tenants.json.TMP.tmp');
    await writeTenants(file, addAccount({ accounts: [] }, 'acme'));
    expect(seen()).toEqual([`fsync ${root}`, `fsync ${tmp}`, `rename ${tmp} -> ${file}`, `fsync ${dir}`]);

    events.length = 0;
    await writeTenants(file, addAccount(addAccount({ accounts: [] }, 'acme'), 'globex'));
    expect(seen()).toEqual([`fsync ${tmp}`, `rename ${tmp} -> ${file}`, `fsync ${dir}`]);
    expect(parseTenants(await readFile(file, 'utf8'), file).file.accounts.map((a) => a.id)).toEqual(['acme', 'globex']);
  });
});
