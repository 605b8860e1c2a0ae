import { createHash } from 'node:crypto';
import type { Tenants } from './compile.ts';

const cache = new WeakMap<Tenants, string>();

/**
 * A short name for the set of valid API keys (a hash of their sorted SHA-256s), the same on every instance that
 * loaded the same keys. Computed once per loaded configuration.
 */
export function keySetEpoch(tenants: Tenants): string {
  let epoch = cache.get(tenants);
  if (epoch === undefined) {
    epoch = createHash('sha256')
      .update([...tenants.keys.keys()].sort().join(','))
      .digest('hex')
      .slice(0, 12);
    cache.set(tenants, epoch);
  }
  return epoch;
}
