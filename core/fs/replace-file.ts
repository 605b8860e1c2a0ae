import { rename } from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from './sync-dir.ts';
import { withSyncedFile } from './synced-file.ts';

/**
 * Replaces `file` with `text` atomically and durably: written to `temp` (a name in the same folder, so the rename is
 * atomic), fsync'd, renamed over `file`, then the folder fsync'd. A reader sees the old file or the new one, never
 * half of one, and a crash after this returns cannot bring the old one back.
 */
export async function replaceFile(file: string, text: string, temp: string, mode: number): Promise<void> {
  // Synced before the rename: else a crash could leave the new name on a file whose content never reached the disk.
  await withSyncedFile(temp, 'w', mode, (handle) => handle.writeFile(text));
  await rename(temp, file);
  await syncDir(path.dirname(file));
}
