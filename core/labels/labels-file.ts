import type { z } from 'zod';

/**
 * One line of a labels file (data/labels/*.jsonl) read back, with its text as it stands so it can be written back.
 * `torn`: the unterminated last line, not JSON: a write a crash cut short. `other`: any other line that is not JSON,
 * or JSON the schema does not take; left for a person to read.
 */
export type LabelsFileLine<T> =
  | { readonly text: string; readonly kind: 'blank' }
  | { readonly text: string; readonly kind: 'torn' }
  | { readonly text: string; readonly kind: 'other' }
  | { readonly text: string; readonly kind: 'line'; readonly line: T };

/**
 * A labels file's lines, each read through `schema`. The export and the erasure read the files this one way, so they
 * agree on which line is a crash fragment: only a write cut short leaves an unterminated last line that is not JSON.
 */
export function readLabelsFile<S extends z.ZodType>(text: string, schema: S): LabelsFileLine<z.infer<S>>[] {
  const parts = text.split('\n');
  return parts.map((part, i): LabelsFileLine<z.infer<S>> => {
    if (part.trim() === '') return { text: part, kind: 'blank' };
    let raw: unknown;
    try {
      raw = JSON.parse(part);
    } catch {
      return { text: part, kind: i === parts.length - 1 ? 'torn' : 'other' };
    }
    const line = schema.safeParse(raw);
    return line.success ? { text: part, kind: 'line', line: line.data } : { text: part, kind: 'other' };
  });
}
