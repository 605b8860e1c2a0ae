import { describe, expect, it } from 'vitest';
import { flattenFields } from '../../../core/features/flatten.ts';

describe('flattenFields with a character cap', () => {
  // Non-ASCII (normalized), with zero-width characters to remove and a surrogate pair at every length mod 7.
  const long = Array.from({ length: 9000 }, (_, i) => `Grüße ﬁne\u200b${i % 7 === 0 ? '😀' : ''} `).join('');

  it('cleans only what extraction can read, and that part exactly as cleaning the whole text would', () => {
    const cap = 20_000;
    const whole = flattenFields({ message: long, email: 'a@b.example' });
    const capped = flattenFields({ message: long, email: 'a@b.example' }, [], cap);
    const w = whole[0]?.text ?? '';
    const c = capped[0]?.text ?? '';
    expect(w.length).toBeGreaterThan(100_000);
    expect(c.length).toBeLessThan(w.length);
    expect(c.length).toBeGreaterThanOrEqual(cap);
    expect(c.slice(0, cap)).toBe(w.slice(0, cap));
    expect(capped[1]).toEqual(whole[1]);
  });

  it('falls back to the whole text when removed characters would leave the prefix short', () => {
    const hidden = '\u200b'.repeat(30_000) + 'visible words after the invisible run';
    const [f] = flattenFields({ message: hidden }, [], 20_000);
    expect(f?.text).toBe('visible words after the invisible run');
  });

  it('keeps a long honeypot whole: only blank or not matters there', () => {
    const [f] = flattenFields({ _gotcha: ' '.repeat(25_000) + 'x' }, [], 20_000);
    expect(f?.role).toBe('honeypot');
    expect(f?.text.trim()).toBe('x');
  });
});

describe('flattenFields on padded posts', () => {
  const many = (n: number, value: unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), value]));

  it('skips empty values but keeps an empty honeypot (empty vs. filled matters)', () => {
    const f = flattenFields({ a: '', b: null, _gotcha: '', message: 'hello there' });
    expect(f.map((x) => [x.key, x.role, x.text])).toEqual([
      ['_gotcha', 'honeypot', ''],
      ['message', 'message', 'hello there'],
    ]);
  });

  it('keeps at most 256 fields, giving way to the message before junk of no role', () => {
    const f = flattenFields({ ...many(300, 'x'), message: 'the real message' });
    expect(f).toHaveLength(256);
    expect(f.at(-1)).toMatchObject({ key: 'message', text: 'the real message' });
    expect(f.slice(0, 255).every((x) => x.role === 'other' && x.text === 'x')).toBe(true);
  });

  it('reads fields nested deeper than any form builder nests them, up to 32 levels', () => {
    let deep: unknown = { message: 'deep text' };
    for (let i = 0; i < 30; i++) deep = { level: deep };
    expect(flattenFields({ deep } as Record<string, unknown>).map((x) => x.text)).toEqual(['deep text']);
  });
});
