import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flattenFields } from '../../../service/features/flatten.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../service/http/json-depth.ts';
import { capFields } from '../../../service/review/fields.ts';
import { fieldsOf } from '../../../service/verify/fields.ts';
import type { VerifyRequest } from '../../../service/verify/schema.ts';

/** Depth as JSON counts it: each array or object is one level. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce((max: number, v) => Math.max(max, depthOf(v)), 0);
}

/** A string leaf `levels` containers below `outer`, alternating arrays and objects (keys that name no role). */
function nested(levels: number, leaf: string): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { [`n${i}`]: v };
  return v;
}

describe('nestsDeeperThan', () => {
  it('agrees with the parsed value’s depth, for any JSON text and limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), fc.boolean(), (value, limit, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(nestsDeeperThan(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('does not count brackets inside strings, whatever their escapes', () => {
    const tricky = ['[[[[{{{{', '\\"[[[[', 'a\\\\', '\\\\\\"{{{{', '"', '\\u0022[[[['];
    for (const s of tricky) {
      const text = JSON.stringify({ k: s, [s]: [s] });
      expect(nestsDeeperThan(text, 2), text).toBe(false);
      expect(nestsDeeperThan(text, 1), text).toBe(true);
    }
    // A string that never closes is for JSON.parse to refuse, not deep.
    expect(nestsDeeperThan('{"a":"[[[[[[', 2)).toBe(false);
  });

  it('stops at the first level past the limit, however long the rest', () => {
    expect(nestsDeeperThan('['.repeat(33), 32)).toBe(true);
    expect(nestsDeeperThan('['.repeat(32), 32)).toBe(false);
    expect(nestsDeeperThan('[]'.repeat(1000), 1)).toBe(false);
  });
});

describe(`MAX_JSON_DEPTH (${MAX_JSON_DEPTH}): nothing a body this deep holds is left unread for its depth`, () => {
  // The body object is level 1 and payload/fieldData level 2, so their values may nest MAX_JSON_DEPTH - 2 levels.
  const deepest = (leaf: string) => nested(MAX_JSON_DEPTH - 2, leaf);
  const bodies: Array<[string, VerifyRequest]> = [
    ['payload only', { apiKey: 'k', formId: 'f', payload: { message: 'hello', deep: deepest('deepest payload leaf') } }],
    ['payload and fieldData', { apiKey: 'k', formId: 'f', payload: { deep: deepest('deepest payload leaf') }, fieldData: { deep: deepest('deepest fieldData leaf') } }],
  ];

  it.each(bodies)('%s: accepted, and the feature extractor reads the deepest leaves', (_name, body) => {
    const text = JSON.stringify(body);
    expect(depthOf(body)).toBe(MAX_JSON_DEPTH);
    expect(nestsDeeperThan(text, MAX_JSON_DEPTH)).toBe(false);
    const texts = flattenFields(fieldsOf(body)).map((f) => f.text);
    expect(texts).toContain('deepest payload leaf');
    if (body.fieldData !== undefined) expect(texts).toContain('deepest fieldData leaf');
  });

  it.each(bodies)('%s: the review queue keeps it whole (not marked truncated)', (_name, body) => {
    const capped = capFields(fieldsOf(body), 16 * 1024);
    expect(capped.truncated).toBe(false);
    expect(JSON.stringify(capped.fields)).toContain('deepest payload leaf');
  });

  it('one level more is refused', () => {
    const body = { apiKey: 'k', formId: 'f', payload: { deep: nested(MAX_JSON_DEPTH - 1, 'too deep') } };
    expect(nestsDeeperThan(JSON.stringify(body), MAX_JSON_DEPTH)).toBe(true);
  });
});
