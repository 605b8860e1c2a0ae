import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { replaceFile } from '../fs/replace-file.ts';
import { ModelLoadError } from './errors.ts';
import { listModelVersions } from './load.ts';
import { MODEL_VERSION_PATTERN } from './manifest.ts';

/** The file beside the model folders that says which one serves. */
export const SERVING_FILE = 'serving.json';

const version = z.string().regex(MODEL_VERSION_PATTERN, 'must be a model version such as 20261125-002832');

/** How many promotions back a rollback can walk; older ones are dropped from the record. */
export const MAX_SERVING_HISTORY = 20;

/** models/serving.json: what serves, what it replaced (for rollback), what is shadowed, and who changed it when. */
export const servingRecordSchema = z
  .object({
    active: version,
    /** The last of `history` (what a rollback brings back), kept for readers of records written before it. */
    previous: version.nullable(),
    /**
     * The versions each promotion replaced, oldest first: a rollback takes the last one off, so rollbacks walk back
     * through promotions and never forward. Absent in records written before it: `previous` alone is the history.
     */
    history: z.array(version).max(MAX_SERVING_HISTORY).optional(),
    shadow: version.nullable().default(null),
    changedAt: z.string().datetime(),
    changedBy: z.string().min(1),
  })
  .strict();
export type ServingRecord = z.infer<typeof servingRecordSchema>;

/**
 * The record exists but is not one: a running service keeps what serves, start-up stops, the CLI refuses to edit
 * over it. A ModelLoadError, so whatever reports a model that cannot serve reports this too.
 */
export class ServingRecordError extends ModelLoadError {
  override name = 'ServingRecordError';
}

export function servingFile(modelsDir: string): string {
  return path.join(modelsDir, SERVING_FILE);
}

/** The record's text as on disk, or undefined when there is none; what followers compare to see a change. */
export async function readServingText(modelsDir: string): Promise<string | undefined> {
  try {
    return await readFile(servingFile(modelsDir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ServingRecordError(`cannot read ${servingFile(modelsDir)}: ${(e as Error).message}`);
  }
}

export function parseServingRecord(text: string, file: string): ServingRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ServingRecordError(`${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = servingRecordSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServingRecordError(`${file}: ${issue?.path.join('.') || 'record'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** The versions a rollback can walk back to, the next one last. */
export function servingHistory(record: ServingRecord | undefined): string[] {
  if (record === undefined) return [];
  return record.history ?? (record.previous === null ? [] : [record.previous]);
}

/** The record, or undefined when there is none (a fresh clone: the newest version serves). */
export async function readServingRecord(modelsDir: string): Promise<ServingRecord | undefined> {
  const text = await readServingText(modelsDir);
  return text === undefined ? undefined : parseServingRecord(text, servingFile(modelsDir));
}

/**
 * Replaces the record atomically (a service polling it reads the old one or the new one, never half) and durably (a
 * rollback that a power loss undid would put the refused model back at the next start).
 */
export async function writeServingRecord(modelsDir: string, record: ServingRecord): Promise<void> {
  const text = `${JSON.stringify(servingRecordSchema.parse(record), null, 2)}\n`;
  const file = servingFile(modelsDir);
  const tmp = path.join(modelsDir, `.${SERVING_FILE}.${randomBytes(4).toString('hex')}.tmp`);
  await replaceFile(file, text, tmp, 0o644);
}

/** What serves and why: a MODEL_VERSION pin, the record, or (no record) the newest version. */
export interface ServingChoice {
  readonly active: string;
  readonly shadow: string | null;
  readonly previous: string | null;
  readonly source: 'pinned' | 'record' | 'newest';
}

/**
 * Decides what serves. `pinned` (MODEL_VERSION) wins over the record for the active model; the record's shadow still
 * applies. Throws ModelLoadError when there is nothing to serve.
 */
export function chooseServing(record: ServingRecord | undefined, versions: readonly string[], pinned?: string): ServingChoice {
  const shadow = record?.shadow ?? null;
  const previous = record?.previous ?? null;
  if (pinned !== undefined) return { active: pinned, shadow, previous, source: 'pinned' };
  if (record !== undefined) return { active: record.active, shadow, previous, source: 'record' };
  const newest = versions.at(-1);
  if (newest === undefined) throw new ModelLoadError('no model versions to serve (run `npm run train`)');
  return { active: newest, shadow: null, previous: null, source: 'newest' };
}

/** chooseServing over the folder as it is now. */
export async function currentServing(modelsDir: string, pinned?: string): Promise<ServingChoice> {
  const [record, versions] = await Promise.all([readServingRecord(modelsDir), listModelVersions(modelsDir)]);
  return chooseServing(record, versions, pinned);
}
