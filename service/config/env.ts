import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

// Empty strings from shells and .env files mean "unset", not "invalid".
const unsetIfEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema);
const optionalString = unsetIfEmpty(z.string().optional());
const number = (def: number) => z.preprocess((v) => (v === '' || v === undefined ? def : Number(v)), z.number().finite());

export const envSchema = z.object({
  NODE_ENV: unsetIfEmpty(z.enum(['development', 'production', 'test']).default('development')),
  PORT: number(3000).pipe(z.number().int().min(0).max(65535)),
  HOST: unsetIfEmpty(z.string().min(1).default('127.0.0.1')),
  TENANTS_FILE: optionalString,
  REDIS_URL: optionalString.pipe(z.string().url().optional()),
  MODELS_DIR: unsetIfEmpty(z.string().min(1).default('models')),
  MODEL_VERSION: optionalString,
  LOG_LEVEL: unsetIfEmpty(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  BODY_LIMIT: number(64 * 1024).pipe(z.number().int().min(1024).max(16 * 1024 * 1024)),
  // Strict: "yes" must not quietly mean false behind a proxy.
  TRUST_PROXY: unsetIfEmpty(z.enum(['true', 'false', '1', '0']).default('false')).transform((v) => v === 'true' || v === '1'),
  // Verify service: rate limits, key guessing, overload.
  RATE_LIMIT_PREFIX: unsetIfEmpty(z.string().min(1).default('formguard:rl')),
  KEY_FAILURE_MAX: number(20).pipe(z.number().int().min(1)),
  KEY_FAILURE_WINDOW_SECONDS: number(60).pipe(z.number().int().min(1)),
  MAX_EVENT_LOOP_DELAY_MS: number(1000).pipe(z.number().int().min(0)),
  SHUTDOWN_GRACE_MS: number(10_000).pipe(z.number().int().min(0)),
  // Review queue (only with REDIS_URL).
  REVIEW_BAND: number(0.75).pipe(z.number().min(0).max(1)),
  REVIEW_SAMPLE_RATE: number(0.01).pipe(z.number().min(0).max(1)),
  REVIEW_RETENTION_DAYS: number(30).pipe(z.number().positive()),
  REVIEW_SPOOL_DIR: unsetIfEmpty(z.string().min(1).default('.spool')),
  REVIEW_SPOOL_MAX_BYTES: number(64 * 1024 * 1024).pipe(z.number().int().positive()),
  REVIEW_MAX_FIELD_BYTES: number(16 * 1024).pipe(z.number().int().positive()),
  BULLMQ_PREFIX: unsetIfEmpty(z.string().min(1).default('formguard')),
});

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value names the variable. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** The folder holding package.json: found by walking up, so the sources (service/config/) and the bundle (dist/) agree. */
export const repoRoot = packageRoot(import.meta.dirname);

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new ConfigError(`no package.json in ${from} or above it`);
  }
}
