import { describe, expect, it } from 'vitest';
import { emailsOf, queryWords, searchWords, wordsOf } from '../../../../service/review/text/words.ts';

function emails(text: string): string[] {
  const out: string[] = [];
  emailsOf(text, (e) => out.push(e));
  return out;
}

describe('words of submitted text', () => {
  it('finds each e-mail address whole, wherever punctuation or other addresses surround it', () => {
    expect(emails('write to ada@example.com or <bob.smith@mail.example.co.uk>, thanks')).toEqual([
      'ada@example.com',
      'bob.smith@mail.example.co.uk',
    ]);
    expect(emails('"x@y.org";(z@w.net)')).toEqual(['x@y.org', 'z@w.net']);
    // No top-level part of two letters, no local part, or no domain: no address.
    expect(emails('a@b.c @example.com ada@ ada@example')).toEqual([]);
    expect([...wordsOf('Ünïcode ADA@Example.COM')]).toEqual(['ada@example.com', 'unicode', 'ada', 'example', 'com']);
  });

  it('indexes e-mail fields first and at most 80 words; a query finds an address whole and the other words', () => {
    const many = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const words = searchWords({ message: many, email: 'ann@example.org' });
    expect(words).toHaveLength(80);
    expect(words[0]).toBe('ann@example.org');
    expect(queryWords('ann@example.org Leeds')).toEqual(['ann@example.org', 'leeds']);
    expect(queryWords('!! a')).toBeUndefined();
  });
});
