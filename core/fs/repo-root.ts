import { existsSync } from 'node:fs';
import path from 'node:path';

/** The folder holding package.json: found by walking up, so the sources and the service's bundle (dist/) agree. */
export const repoRoot = packageRoot(import.meta.dirname);

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${from} or above it`);
  }
}
