import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { makeDir } from '../../core/fs/make-dir.ts';
import { replaceFile } from '../../core/fs/replace-file.ts';
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
  await replaceFile(file, text, tmp, 0o600);
}
