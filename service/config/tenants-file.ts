import path from 'node:path';
import { ConfigError, type Env } from './env.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';

export const EXAMPLE_TENANTS_FILE = path.join(repoRoot, 'examples', 'tenants.example.json');

export type TenantsFileChoice = { readonly file: string; readonly example: boolean };

/** TENANTS_FILE, else the repo's example with its public demo key (refused in production). */
export function chooseTenantsFile(env: Pick<Env, 'TENANTS_FILE' | 'NODE_ENV'>): TenantsFileChoice {
  if (env.TENANTS_FILE !== undefined) return { file: path.resolve(env.TENANTS_FILE), example: false };
  if (env.NODE_ENV === 'production') {
    throw new ConfigError(
      'Invalid configuration:\n  TENANTS_FILE: required when NODE_ENV=production (the example file holds a public demo key)',
    );
  }
  return { file: EXAMPLE_TENANTS_FILE, example: true };
}
