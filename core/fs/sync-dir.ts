import { open } from 'node:fs/promises';

// Where a folder cannot be opened or fsync'd (EISDIR: Windows; EPERM, EINVAL: some file systems and mounts), there is
// nothing more to be had than the OS gives: not a reason to fail the write that came before.
const UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL']);

function unsupported(err: unknown): boolean {
  return UNSUPPORTED.has((err as NodeJS.ErrnoException).code ?? '');
}

/**
 * Makes the renames, creations and deletions of names in `dir` durable: fsync on a file makes its contents durable,
 * not the folder entry naming it, so without this a crash can bring back a file's old name (or the file itself).
 */
export async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (err) {
    if (unsupported(err)) return;
    throw err;
  }
  try {
    await handle.sync();
  } catch (err) {
    if (!unsupported(err)) throw err;
  } finally {
    await handle.close();
  }
}
