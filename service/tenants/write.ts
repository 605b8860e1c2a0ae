import { randomBytes } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import { makeDir } from '../fs/make-dir.ts';
import { syncDir } from '../fs/sync-dir.ts';
import { parseTenants } from './load.ts';
import type { TenantsFile } from './schema.ts';

/**
 * Checks the result as the service would, then replaces the file atomically (the service never reads half a file) and
 * durably: a change undone by a power loss would bring a revoked key back, or leave a key printed as issued refused.
 */
export async function writeTenants(file: string, data: TenantsFile): Promise<void> {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  parseTenants(text, file);
  // add-account may create the file, and then its folder: `tenants/` is not in a fresh clone.
  await makeDir(path.dirname(file), 0o700);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    // Before the rename: else a crash could leave the new name on a file whose content never reached the disk.
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  await syncDir(path.dirname(file));
}
