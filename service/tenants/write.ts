import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseTenants } from './load.ts';
import type { TenantsFile } from './schema.ts';

/** Checks the result as the service would, then replaces the file atomically (the service never reads half a file). */
export async function writeTenants(file: string, data: TenantsFile): Promise<void> {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  parseTenants(text, file);
  // add-account may create the file, and then its folder: `tenants/` is not in a fresh clone.
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, file);
}
