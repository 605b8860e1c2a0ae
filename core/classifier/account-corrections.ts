import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ModelLoadError } from './errors.ts';
import type { SparseInput } from './linear-scorer.ts';

/** The file in a model folder that holds the per-account corrections (listed in the manifest when present). */
export const ACCOUNTS_FILE = 'accounts.json';

/**
 * The newest accounts.json this service reads: 2 added each account's `thresholdShift`. A file without `version` is
 * 1 (written before it). A service that cannot apply a file's shifts must refuse it, not serve the corrections without
 * them (they would flag the genuine mail the shift was chosen to spare): version 1's schema refuses the field.
 */
export const ACCOUNTS_FILE_VERSION = 2;

/** The most an account's threshold may be above the model's, in calibrated log-odds (training never goes further). */
export const MAX_THRESHOLD_SHIFT = 3;

const correctionSchema = z
  .object({
    /** How many of the account's labels it was fitted on. */
    labels: z.number().int().positive(),
    bias: z.number().finite(),
    /**
     * How far above the model's threshold this account's verdicts are decided, in calibrated log-odds (absent: at the
     * model's). Chosen from the account's own labels so its correction flags no more of its genuine mail than the model.
     */
    thresholdShift: z.number().finite().min(0).max(MAX_THRESHOLD_SHIFT).optional(),
    /** Hashed feature buckets, strictly ascending; `weights[i]` belongs to `buckets[i]`. */
    buckets: z.array(z.number().int().nonnegative()),
    weights: z.array(z.number().finite()),
  })
  .strict()
  .refine((c) => c.buckets.length === c.weights.length, { message: 'buckets and weights differ in length' })
  .refine((c) => c.buckets.every((b, i) => i === 0 || b > (c.buckets[i - 1] as number)), { message: 'buckets must be strictly ascending' });
export type StoredCorrection = z.infer<typeof correctionSchema>;

/**
 * models/<version>/accounts.json: each account's correction, added to the global model's calibrated log-odds for that
 * account's submissions only.
 */
export const accountsFileSchema = z
  .object({
    version: z.literal(ACCOUNTS_FILE_VERSION).optional(),
    accounts: z.record(z.string().min(1), correctionSchema),
  })
  .strict()
  .refine((f) => f.version !== undefined || Object.values(f.accounts).every((c) => c.thresholdShift === undefined), {
    message: `a threshold shift needs version ${ACCOUNTS_FILE_VERSION}`,
    path: ['version'],
  });
export type AccountsFile = z.infer<typeof accountsFileSchema>;

/**
 * One account's correction as the service holds it: an open-addressing table (bucket + 1 -> weight), so a submission
 * costs one or two probes per feature whatever the number of buckets the account's labels used.
 */
export class AccountCorrection {
  readonly bias: number;
  readonly labels: number;
  /** Taken off the account's log-odds: its verdicts are decided this far above the model's threshold. */
  readonly thresholdShift: number;
  private readonly keys: Int32Array;
  private readonly weights: Float32Array;
  private readonly mask: number;
  readonly buckets: number;

  constructor(stored: StoredCorrection) {
    this.bias = stored.bias;
    this.thresholdShift = stored.thresholdShift ?? 0;
    this.buckets = stored.buckets.length;
    this.labels = stored.labels;
    let size = 16;
    while (size < stored.buckets.length * 2) size *= 2;
    this.keys = new Int32Array(size);
    this.weights = new Float32Array(size);
    this.mask = size - 1;
    stored.buckets.forEach((b, i) => {
      let at = slotOf(b, this.mask);
      while (this.keys[at] !== 0) at = (at + 1) & this.mask;
      this.keys[at] = b + 1;
      this.weights[at] = stored.weights[i] as number;
    });
  }

  /** The weight of one bucket, 0 for a bucket the account's labels never used. */
  weightOf(bucket: number): number {
    const keys = this.keys;
    const key = bucket + 1;
    for (let at = slotOf(bucket, this.mask); ; at = (at + 1) & this.mask) {
      const k = keys[at] as number;
      if (k === key) return this.weights[at] as number;
      if (k === 0) return 0;
    }
  }

  /**
   * What the correction adds to one submission's calibrated log-odds, its threshold shift taken off (so the account's
   * probability against the model's threshold gives the account's verdict).
   */
  logit(x: SparseInput): number {
    // weightOf inlined, everything in locals: this runs once per feature of every submission of the account.
    // A correction of its bias alone (no weight was worth keeping) costs nothing per feature.
    if (this.buckets === 0) return this.bias - this.thresholdShift;
    const n = x.count ?? x.indices.length;
    const { keys, weights, mask } = this;
    const indices = x.indices;
    const values = x.values;
    let z = this.bias - this.thresholdShift;
    for (let i = 0; i < n; i++) {
      const key = (indices[i] as number) + 1;
      for (let at = (Math.imul(key, 0x9e3779b1) >>> 12) & mask; ; at = (at + 1) & mask) {
        const k = keys[at] as number;
        if (k === key) {
          z += (weights[at] as number) * (values[i] as number);
          break;
        }
        if (k === 0) break;
      }
    }
    return z;
  }
}

/** Fibonacci hashing: hashed buckets are already spread, but their low bits are not all independent of the features. */
function slotOf(bucket: number, mask: number): number {
  return (Math.imul(bucket + 1, 0x9e3779b1) >>> 12) & mask;
}

/** Every account's correction by account id; an account without one gets the global model unchanged. */
export class AccountCorrections {
  private readonly byAccount: ReadonlyMap<string, AccountCorrection>;

  constructor(file: AccountsFile) {
    this.byAccount = new Map(Object.entries(file.accounts).map(([id, c]) => [id, new AccountCorrection(c)]));
  }

  get size(): number {
    return this.byAccount.size;
  }

  get(accountId: string): AccountCorrection | undefined {
    return this.byAccount.get(accountId);
  }
}

/** Reads and checks accounts.json: every bucket must exist in the model's hashed layer. */
export async function readAccountCorrections(
  dir: string,
  dimension: number,
  check?: (file: string, bytes: Buffer) => void,
): Promise<AccountCorrections> {
  const file = path.join(dir, ACCOUNTS_FILE);
  let raw: unknown;
  try {
    const bytes = await readFile(file);
    check?.(file, bytes);
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    if (e instanceof ModelLoadError) throw e;
    throw new ModelLoadError(`cannot read ${file} (the manifest lists it): ${(e as Error).message}`);
  }
  // A newer trainer's file: named as such, not as a schema error in some field this service does not know.
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > ACCOUNTS_FILE_VERSION)
    throw new ModelLoadError(
      `${file} is version ${version}; this service reads versions up to ${ACCOUNTS_FILE_VERSION} (a newer trainer wrote it)`,
    );
  const parsed = accountsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelLoadError(`${file}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  for (const [id, c] of Object.entries(parsed.data.accounts)) {
    const last = c.buckets.at(-1);
    if (last !== undefined && last >= dimension)
      throw new ModelLoadError(`${file}: account ${id} names bucket ${last}; the model has ${dimension}`);
  }
  return new AccountCorrections(parsed.data);
}
