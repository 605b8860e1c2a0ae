import { roleOf } from '../../../core/features/roles.ts';

/** How much of the message a list row carries. */
const PREVIEW_CHARS = 240;

/**
 * What a list row shows of a submission: the field the feature extractor reads as the message (roles.ts; the longest
 * when there are several), else the longest text field that is not a honeypot, else the longest other value as JSON;
 * and the sender's e-mail when a field holds one. The text is as sent (the console shows control characters as such).
 */
export function messageOf(fields: Record<string, unknown>): { message: string; email: string | undefined } {
  let message: string | undefined;
  let text: string | undefined;
  let other: string | undefined;
  let email: string | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') {
      const json = JSON.stringify(value) ?? '';
      if (json.length > (other?.length ?? 0)) other = json;
      continue;
    }
    const v = value.trim();
    if (v === '') continue;
    const role = roleOf(key, v);
    if (role === 'honeypot') continue;
    if (role === 'message' && v.length > (message?.length ?? 0)) message = v;
    if (role === 'email' && email === undefined) email = v;
    if (v.length > (text?.length ?? 0)) text = v;
  }
  return { message: (message ?? text ?? other ?? '').slice(0, PREVIEW_CHARS), email };
}
