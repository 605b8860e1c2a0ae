import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8'));

interface LockEntry {
  readonly engines?: { readonly node?: string } | string[];
  readonly optional?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
}

const pkg = readJson('package.json') as { engines: { node: string } };
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
const oldestNode = semver.minVersion(pkg.engines.node)?.version ?? '';

/** Packages installed on Linux x64 (platform-only optional ones elsewhere never install here, nor for most users). */
function installedOnLinux(entry: LockEntry): boolean {
  return (entry.os === undefined || entry.os.includes('linux')) && (entry.cpu === undefined || entry.cpu.includes('x64'));
}

describe('the Node.js version the project promises', () => {
  it('is the one the README names', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`Node.js ${semver.major(oldestNode)}.${semver.minor(oldestNode)} or newer`);
  });

  // `npm ci` warns (EBADENGINE) for each of these, and the package may use APIs the promised Node lacks.
  it('satisfies every locked dependency that states an engine', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([name, entry]) => name !== '' && installedOnLinux(entry))
      .flatMap(([name, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range === undefined || semver.satisfies(oldestNode, range) ? [] : [`${name} wants node ${range}`];
      });
    expect(oldestNode).toMatch(/^\d+\.\d+\.\d+$/);
    expect(refusing).toEqual([]);
  });
});
