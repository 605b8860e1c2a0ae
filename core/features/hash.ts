// FNV-1a, 32 bit: fast, allocation-free, stable across platforms (model weights depend on it).
export const FNV_OFFSET = 0x811c9dc5;

export function hashStep(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193);
}

export function hashString(s: string, h = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** Hashes text[start, end) with ASCII digits folded to '0', so numbers of one shape share a feature. */
export function hashRange(text: string, start: number, end: number, h: number): number {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h = Math.imul(h ^ (c >= 0x30 && c <= 0x39 ? 0x30 : c), 0x01000193);
  }
  return h;
}
