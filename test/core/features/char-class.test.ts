import { describe, expect, it } from 'vitest';
import { CASED } from '../../../core/features/char-class.ts';

describe('CASED', () => {
  it('holds every BMP letter with an upper- and a lower-case form, Georgian excepted, and nothing else', () => {
    const georgian = (c: number) => (c >= 0x10a0 && c <= 0x10ff) || (c >= 0x1c90 && c <= 0x1cbf) || (c >= 0x2d00 && c <= 0x2d2f);
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      const expected = !georgian(c) && ch.toUpperCase() !== ch.toLowerCase();
      if ((CASED[c] === 1) !== expected) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
  });
});
