import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listModelVersions } from '../../core/classifier/load.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';

const bundled = path.join(repoRoot, 'models');

/** A fresh models folder for one test file. */
export function tempModelsDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'formguard-lifecycle-'));
}

/**
 * The bundled model copied into `dir` as `name`, its manifest edited by `edit`: a second model at no training cost
 * (a changed threshold makes it answer differently on borderline submissions).
 */
export async function copyModel(dir: string, name: string, edit: (m: Record<string, unknown>) => void = () => {}): Promise<string> {
  const versions = await listModelVersions(bundled);
  const source = versions.at(-1) as string;
  cpSync(path.join(bundled, source), path.join(dir, name), { recursive: true });
  const file = path.join(dir, name, 'manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  m.version = name;
  edit(m);
  writeFileSync(file, JSON.stringify(m, null, 2));
  return path.join(dir, name);
}

/** A copy whose weights file is cut short: it lists, but cannot load. */
export async function corruptModel(dir: string, name: string): Promise<void> {
  const folder = await copyModel(dir, name);
  const weights = path.join(folder, 'weights.bin');
  writeFileSync(weights, readFileSync(weights).subarray(0, 1000));
}

/** Gives the model in `folder` per-account corrections (accounts.json, digested in its manifest as training writes it). */
export function addAccountCorrections(folder: string, accounts: Record<string, { bias: number }>): void {
  const file = JSON.stringify({
    accounts: Object.fromEntries(Object.entries(accounts).map(([id, c]) => [id, { labels: 20, bias: c.bias, buckets: [], weights: [] }])),
  });
  writeFileSync(path.join(folder, 'accounts.json'), file);
  const manifestFile = path.join(folder, 'manifest.json');
  const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, Record<string, unknown>>;
  m.accountCorrections = { file: 'accounts.json', accounts: Object.keys(accounts).length, minLabels: 20, l2: 1, biasL2: 1, iterations: 1 };
  m.modelFiles = {
    ...m.modelFiles,
    'accounts.json': { sha256: createHash('sha256').update(file).digest('hex'), bytes: Buffer.byteLength(file) },
  };
  writeFileSync(manifestFile, JSON.stringify(m, null, 2));
}
