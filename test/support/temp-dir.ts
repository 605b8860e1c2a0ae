import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh folder under the OS's temporary one, and what removes it. */
export async function tempDir(name: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `fg-${name}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
