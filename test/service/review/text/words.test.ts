import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wordHash } from '../../../../service/review/text/words.ts';

describe('wordHash', () => {
  it('names a word by the same key suffix every time, cached or not, so items stored before keep being found', () => {
    const sha = (w: string) => createHash('sha256').update(w).digest('base64url').slice(0, 16);
    // Past the cache's size, so both fresh and cached answers (and a cache emptied when full) are compared.
    const words = Array.from({ length: 25_000 }, (_, i) => `word${i % 21_000}`);
    for (const w of words) expect(wordHash(w)).toBe(sha(w));
  });
});
