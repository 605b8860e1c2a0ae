import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../service/tenants/key.ts';
import { BENCH_API_KEY, BENCH_FORM_ID, BENCH_ORIGIN } from './bodies.ts';

/** An account with a real, small rate limit, which a bench hits past its limit (bench/entries/redis-memory.ts). */
export interface LimitedBenchAccount {
  readonly id: string;
  readonly apiKey: string;
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Writes the benches' tenants file into `dir` and returns its path: one account whose limit never triggers, so the
 * limiter path (count + check) runs on every request and never rejects; and any `limited` accounts (fixed windows,
 * each with one form, `<id>-form`).
 */
export function writeBenchTenants(dir: string, limited: readonly LimitedBenchAccount[] = []): string {
  const file = path.join(dir, 'tenants.json');
  writeFileSync(
    file,
    JSON.stringify({
      accounts: [
        {
          id: 'bench',
          apiKeys: [{ id: 'bench', sha256: sha256Hex(BENCH_API_KEY) }],
          rateLimit: { max: 1_000_000_000, windowSeconds: 60, algorithm: 'sliding' },
          forms: [{ id: BENCH_FORM_ID, allowedReferrers: [new URL(BENCH_ORIGIN).hostname] }],
        },
        ...limited.map((a) => ({
          id: a.id,
          apiKeys: [{ id: a.id, sha256: sha256Hex(a.apiKey) }],
          rateLimit: { max: a.max, windowSeconds: a.windowSeconds, algorithm: 'fixed' },
          forms: [{ id: `${a.id}-form`, allowedReferrers: [new URL(BENCH_ORIGIN).hostname] }],
        })),
      ],
    }),
  );
  return file;
}

/** The environment of a production service started by a bench: quiet logs, no admin server, the benches' tenants. */
export function benchServiceEnv(port: number, tenantsFile: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PORT: 'off',
    TENANTS_FILE: tenantsFile,
    ...extra,
  };
}
