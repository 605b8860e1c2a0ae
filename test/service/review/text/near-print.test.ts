import { describe, expect, it } from 'vitest';
import { MIN_SHARED, nearPrint, sharedValues, type NearPrint } from '../../../../service/review/text/near-print.ts';
import { floodFields, VARIED_MESSAGES } from '../near-flood.ts';

/** Grouped as the store groups them: a shared band nominates, MIN_SHARED signature values decide. */
function grouped(a: NearPrint, b: NearPrint): boolean {
  return a.bands.some((x) => b.bands.includes(x)) && sharedValues(a.signature, b.signature) >= MIN_SHARED;
}

function print(formId: string, fields: Record<string, unknown>): NearPrint {
  const p = nearPrint(formId, fields);
  if (p === undefined) throw new Error('no fingerprint');
  return p;
}

describe('the near-duplicate fingerprint', () => {
  it('groups posts of one template with names, numbers, addresses and links varied', () => {
    const first = print('contact', floodFields(0));
    const misses = Array.from({ length: 200 }, (_, i) => i + 1).filter((i) => !grouped(first, print('contact', floodFields(i))));
    expect(misses).toEqual([]);
  });

  it('does not group messages written apart, nor the same template sent to another form', () => {
    const prints = VARIED_MESSAGES.map((message, i) => print('contact', { name: `Person ${i}`, message }));
    const pairs: string[] = [];
    prints.forEach((a, i) => prints.slice(i + 1).forEach((b, j) => grouped(a, b) && pairs.push(`${i}~${i + 1 + j}`)));
    expect(pairs).toEqual([]);
    // A message against the flood template, and the template against itself on another form.
    const flood = print('contact', floodFields(3));
    expect(prints.filter((p) => grouped(p, flood))).toEqual([]);
    expect(grouped(flood, print('newsletter', floodFields(3)))).toBe(false);
  });

  it('is the same on every instance: fixed hashes, computed from the words only', () => {
    const fields = floodFields(5);
    expect(print('contact', fields)).toEqual(print('contact', { ...fields }));
    expect(print('contact', fields).signature).toMatch(/^[0-9a-f]{512}$/);
  });

  it('leaves short notes out: too few words to tell a template from a coincidence', () => {
    expect(nearPrint('contact', { name: 'Sender 1', message: 'Message number 1' })).toBeUndefined();
    expect(nearPrint('contact', { message: 'Order 1234: where is it?' })).toBeUndefined();
  });

  it('reads a bounded part of a huge submission (the words search keeps)', () => {
    const huge = { message: `${'lorem ipsum dolor sit amet consectetur '.repeat(50_000)} tail` };
    expect(grouped(print('contact', huge), print('contact', { message: `${'lorem ipsum dolor sit amet consectetur '.repeat(10)}` }))).toBe(
      true,
    );
  });
});
