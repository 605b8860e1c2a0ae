import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { compileTenants, TenantsError, type Tenants } from './compile.ts';
import { tenantsFileSchema } from './schema.ts';

/** "accounts[0].forms[1].id" from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
  return out || '(root)';
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('\n');
}

/** Parses and checks tenants JSON text; every error message names the place in the file. */
export function parseTenants(text: string, source: string): Tenants {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new TenantsError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  const result = tenantsFileSchema.safeParse(json);
  if (!result.success) throw new TenantsError(`${source}:\n${formatIssues(result.error.issues)}`);
  try {
    return compileTenants(result.data);
  } catch (err) {
    throw new TenantsError(`${source}:\n${(err as Error).message}`);
  }
}

export async function loadTenantsFile(path: string): Promise<{ tenants: Tenants; text: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TenantsError(`${path}: cannot read the tenants file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return { tenants: parseTenants(text, path), text };
}
