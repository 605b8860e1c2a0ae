import { open, type FileHandle } from 'node:fs/promises';

/**
 * Opens `file`, lets `work` change it, then fsyncs it before closing: what `work` wrote (or cut) is on disk when this
 * returns, not only in the page cache, so a crash cannot bring the file's old contents back.
 */
export async function withSyncedFile(
  file: string,
  flags: string,
  mode: number | undefined,
  work: (handle: FileHandle) => Promise<unknown>,
): Promise<void> {
  const handle = await open(file, flags, mode);
  try {
    await work(handle);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
