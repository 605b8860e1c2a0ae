import { createHash } from 'node:crypto';
import type { ReviewJob } from '../intake/job-schema.ts';

/** Field values as text, case and runs of white space folded: what makes two submissions "the same" to a moderator. */
function normalise(value: unknown, out: string[], at: string): void {
  if (typeof value === 'string') out.push(`${at}=${value.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}`);
  else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out.push(`${at}=${String(value)}`);
  else if (Array.isArray(value)) value.forEach((v, i) => normalise(v, out, `${at}[${i}]`));
  else if (typeof value === 'object')
    for (const k of Object.keys(value).sort()) normalise((value as Record<string, unknown>)[k], out, `${at}.${k}`);
}

/**
 * The fingerprint of a submission for campaign merging: its form and normalised fields (not its origin, time or
 * verdict). A spam run posting one text many times gets one fingerprint; two people writing differently never do.
 */
export function fingerprint(job: ReviewJob): string {
  const parts: string[] = [];
  normalise(job.fields, parts, '');
  return createHash('sha256').update(job.formId).update('\0').update(parts.join('\n')).digest('hex').slice(0, 32);
}
