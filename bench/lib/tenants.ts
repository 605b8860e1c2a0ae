import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../service/tenants/key.ts';
import { BENCH_API_KEY, BENCH_FORM_ID, BENCH_ORIGIN } from './bodies.ts';

/**
 * Writes the benches' tenants file into `dir` and returns its path: one account whose limit never triggers, so the
 * limiter path (count + check) runs on every request and never rejects.
 */
export function writeBenchTenants(dir: string): string {
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
      ],
    }),
  );
  return file;
}
