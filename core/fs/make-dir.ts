import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from './sync-dir.ts';

/**
 * `mkdir -p` whose new folders outlive a power loss. Each folder made is a name in its parent, durable only once the
 * parent is fsync'd; lost, it would take the files written into it since, however well they were fsync'd.
 */
export async function makeDir(dir: string, mode?: number): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode });
  if (first === undefined) return; // nothing new: no parent to sync
  const top = path.resolve(first);
  for (let made = path.resolve(dir); ; made = path.dirname(made)) {
    await syncDir(path.dirname(made));
    if (made === top || made === path.dirname(made)) return;
  }
}
