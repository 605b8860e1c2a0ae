import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flattenFields } from '../../../core/features/flatten.ts';
import { exceedsJsonLimits, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../../service/http/json-depth.ts';
import { capFields } from '../../../service/review/intake/fields.ts';
import { fieldsOf } from '../../../service/verify/fields.ts';
import type { VerifyRequest } from '../../../service/verify/schema.ts';

/** The depth bound alone: no count of values can decide. */
const nestsDeeperThan = (text: string, limit: number): boolean => exceedsJsonLimits(text, limit, Infinity) === 'depth';

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
    [
      'payload and fieldData',
      {
        apiKey: 'k',
        formId: 'f',
        payload: { deep: deepest('deepest payload leaf') },
        fieldData: { deep: deepest('deepest fieldData leaf') },
      },
    ],
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

/** Values inside a value: each array element and object member, and what it holds in turn. */
function valuesIn(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce((n: number, v) => n + 1 + valuesIn(v), 0);
}

/** What MAX_JSON_VALUES counts, from the parsed body: values inside its members, and members past the first four. */
function countedValues(body: unknown): number {
  if (body === null || typeof body !== 'object') return 0;
  const members = Array.isArray(body) ? body : Object.values(body);
  return members.reduce((n: number, v) => n + valuesIn(v), 0) + Math.max(0, members.length - 4);
}

/** A body whose payload holds `n` values: one-character fields, the message last. */
function wideBody(n: number, message = 'Hello, could you send me a quote for 20 oak chairs?') {
  const payload: Record<string, unknown> = {};
  for (let i = 0; i < n - 1; i++) payload[`f${i}`] = 'x';
  payload.message = message;
  return { apiKey: 'k', formId: 'f', payload };
}

describe('exceedsJsonLimits: the count of values', () => {
  it('is exact: any JSON text at its count passes and one value fewer allowed is refused', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const n = countedValues(value);
        expect(exceedsJsonLimits(text, 64, n)).toBeUndefined();
        if (n > 0) expect(exceedsJsonLimits(text, 64, n - 1)).toBe('values');
      }),
      { numRuns: 2000 },
    );
  });

  it('is exact for verify-shaped bodies, whatever their fields hold', () => {
    const fields = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }));
    const body = fc.record(
      { apiKey: fc.string(), formId: fc.string(), payload: fields, fieldData: fields, ignored: fc.jsonValue({ maxDepth: 3 }) },
      { requiredKeys: ['apiKey', 'formId'] },
    );
    fc.assert(
      fc.property(body, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? '\t' : undefined);
        const n = countedValues(value);
        expect(exceedsJsonLimits(text, 64, n)).toBeUndefined();
        if (n > 0) expect(exceedsJsonLimits(text, 64, n - 1)).toBe('values');
      }),
      { numRuns: 1000 },
    );
  });

  it('counts no comma or bracket inside a string, and no empty array or object however it is spaced', () => {
    const tricky = [',,,,', '[1,2,3]', '{"a":1,"b":2}', '\\",\\",', 'a\\\\', '\\\\\\",,', '\\u0022,,,'];
    for (const s of tricky) {
      const text = JSON.stringify({ apiKey: s, formId: s, payload: { [s]: s } });
      expect(exceedsJsonLimits(text, 64, 1), text).toBeUndefined();
      expect(exceedsJsonLimits(text, 64, 0), text).toBe('values');
    }
    const empties = '{"apiKey":"k","formId":"f","payload":{"a":[ ],"b":{\n\t},"c":[\r\n]}}';
    expect(exceedsJsonLimits(empties, 64, 3)).toBeUndefined();
    expect(exceedsJsonLimits(empties, 64, 2)).toBe('values');
  });

  it('lets the four members of a verify body through free, and counts each top-level member past them', () => {
    const four = JSON.stringify({ apiKey: 'k', formId: 'f', payload: { a: 1 }, fieldData: { b: 2 } });
    expect(exceedsJsonLimits(four, 64, 2)).toBeUndefined();
    expect(exceedsJsonLimits(four, 64, 1)).toBe('values');
    const six = JSON.stringify({ apiKey: 'k', formId: 'f', payload: { a: 1 }, x: 1, y: 2, z: 3 });
    expect(exceedsJsonLimits(six, 64, 3)).toBeUndefined();
    expect(exceedsJsonLimits(six, 64, 2)).toBe('values');
    // A body wide at its top level (all of it ignored, or not an object at all) is refused like a wide payload.
    // (n commas: n + 1 members, n - 3 of them counted)
    expect(exceedsJsonLimits(`[${'0,'.repeat(MAX_JSON_VALUES + 4)}0]`, MAX_JSON_DEPTH, MAX_JSON_VALUES)).toBe('values');
    expect(exceedsJsonLimits(`[${'0,'.repeat(MAX_JSON_VALUES + 3)}0]`, MAX_JSON_DEPTH, MAX_JSON_VALUES)).toBeUndefined();
  });

  it('answers whichever bound the text crosses first', () => {
    expect(exceedsJsonLimits('{"p":[[[[[1]]]]]}', 4, 10)).toBe('depth');
    expect(exceedsJsonLimits('{"p":[1,2,3,4,5,6,7,8,9,10,[[[[1]]]]]}', 4, 10)).toBe('values');
  });
});

describe(`MAX_JSON_VALUES (${MAX_JSON_VALUES}): a body this wide is accepted and its message read`, () => {
  const atBound = wideBody(MAX_JSON_VALUES);

  it('counts as exactly the bound; one value more is refused', () => {
    expect(countedValues(atBound)).toBe(MAX_JSON_VALUES);
    expect(exceedsJsonLimits(JSON.stringify(atBound), MAX_JSON_DEPTH, MAX_JSON_VALUES)).toBeUndefined();
    expect(exceedsJsonLimits(JSON.stringify(wideBody(MAX_JSON_VALUES + 1)), MAX_JSON_DEPTH, MAX_JSON_VALUES)).toBe('values');
    const both = { ...atBound, fieldData: { extra: 'one more' } };
    expect(exceedsJsonLimits(JSON.stringify(both), MAX_JSON_DEPTH, MAX_JSON_VALUES)).toBe('values');
  });

  it('the feature extractor finds the message after 9,999 other fields', () => {
    const fields = flattenFields(fieldsOf(atBound));
    expect(fields.find((f) => f.key === 'message')).toMatchObject({ role: 'message', text: atBound.payload.message });
  });

  it('the review queue keeps every field', () => {
    const capped = capFields(fieldsOf(atBound), 16 * 1024);
    expect(capped.truncated).toBe(false);
    expect(Object.keys(capped.fields)).toHaveLength(MAX_JSON_VALUES);
  });
});
