/** Caps each submitted field at maxBytes of UTF-8 (strings cut at a character boundary; other values as cut JSON text). */
export function capFields(fields: Record<string, unknown>, maxBytes: number): { fields: Record<string, unknown>; truncated: boolean } {
  const out: Record<string, unknown> = {};
  let truncated = false;
  for (const [name, value] of Object.entries(fields)) {
    const safeName = cutUtf8(name, Math.min(maxBytes, 256));
    if (safeName !== name) truncated = true;
    if (typeof value === 'string') {
      const cut = cutUtf8(value, maxBytes);
      if (cut !== value) truncated = true;
      out[safeName] = cut;
      continue;
    }
    const json = JSON.stringify(value) ?? 'null';
    if (Buffer.byteLength(json) <= maxBytes) {
      out[safeName] = value;
    } else {
      out[safeName] = cutUtf8(json, maxBytes);
      truncated = true;
    }
  }
  return { fields: out, truncated };
}

const encoder = new TextEncoder();

/** The longest prefix of text that fits in maxBytes of UTF-8, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes));
  return read >= text.length ? text : text.slice(0, read);
}
