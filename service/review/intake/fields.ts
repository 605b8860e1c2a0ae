import type { ReviewJob } from './job-schema.ts';

/**
 * Caps each submitted field at maxBytes of UTF-8 (strings cut at a character boundary; other values as cut JSON text).
 * `cut` names the fields (as kept) whose name or value was cut, so the console can say so beside each of them.
 */
export function capFields(
  fields: Record<string, unknown>,
  maxBytes: number,
): { fields: Record<string, unknown>; truncated: boolean; cut: string[] } {
  const out: Record<string, unknown> = {};
  // A Set: two long names can be cut to the same kept name.
  const cut = new Set<string>();
  for (const [name, value] of Object.entries(fields)) {
    const safeName = cutUtf8(name, Math.min(maxBytes, 256));
    let wasCut = safeName !== name;
    if (typeof value === 'string') {
      const kept = cutUtf8(value, maxBytes);
      if (kept !== value) wasCut = true;
      out[safeName] = kept;
    } else {
      const bounded = withinNesting(value, MAX_NESTING);
      if (bounded.cut) wasCut = true;
      const json = JSON.stringify(bounded.value) ?? 'null';
      if (Buffer.byteLength(json) <= maxBytes) {
        out[safeName] = bounded.value;
      } else {
        out[safeName] = cutUtf8(json, maxBytes);
        wasCut = true;
      }
    }
    if (wasCut) cut.add(safeName);
  }
  return { fields: out, truncated: cut.size > 0, cut: [...cut] };
}

/** The job with its fields cut to maxBytes each, marked truncated (and which fields) when anything was cut. */
export function withCappedFields(job: ReviewJob, maxBytes: number): ReviewJob {
  const capped = capFields(job.fields, maxBytes);
  return {
    ...job,
    fields: capped.fields,
    truncated: job.truncated || capped.truncated,
    ...(capped.cut.length > 0 ? { cutFields: capped.cut } : {}),
  };
}

// A value nested deeper is kept as this marker: JSON.stringify recurses and overflows the stack on a 30,000-deep array,
// which lost the item (the body limit allows that much nesting).
const MAX_NESTING = 32;
const TOO_DEEP = '[nested too deep: not kept]';

function withinNesting(value: unknown, levels: number): { value: unknown; cut: boolean } {
  if (value === null || typeof value !== 'object') return { value, cut: false };
  if (levels === 0) return { value: TOO_DEEP, cut: true };
  let cut = false;
  const inner = (v: unknown) => {
    const r = withinNesting(v, levels - 1);
    cut ||= r.cut;
    return r.value;
  };
  const copy = Array.isArray(value) ? value.map(inner) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inner(v)]));
  return { value: cut ? copy : value, cut };
}

const encoder = new TextEncoder();

/** The longest prefix of text that fits in maxBytes of UTF-8, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes));
  return read >= text.length ? text : text.slice(0, read);
}
