import { hash, randomBytes } from 'node:crypto';

/** Runs once per verify request: the one-shot crypto.hash (Node ≥ 20.12) is ~2.5x cheaper than createHash().update().digest(). */
export function sha256Hex(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** 32 random bytes: guessing is hopeless, so the per-IP failure limit is defence in depth. */
export function generateKey(prefix = 'fg_'): string {
  return prefix + randomBytes(32).toString('base64url');
}
