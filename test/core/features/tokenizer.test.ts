import { describe, expect, it } from 'vitest';
import { KIND } from '../../../core/features/kinds.ts';
import type { FieldRole } from '../../../core/features/roles.ts';
import { ScanState } from '../../../core/features/scan-state.ts';
import { DEFAULT_FEATURE_SETTINGS } from '../../../core/features/settings.ts';
import { SparseAccumulator } from '../../../core/features/sparse-accumulator.ts';
import { newTokenTable, scanTokens } from '../../../core/features/tokenizer.ts';

/** Tokenizes one field alone and lists what it produced: each slot's kind and the text it spans. */
function tokenize(text: string, role: FieldRole = 'message') {
  const s = new ScanState(DEFAULT_FEATURE_SETTINGS, new SparseAccumulator(DEFAULT_FEATURE_SETTINGS.hashBits), newTokenTable());
  scanTokens(s, text, 0, role);
  const slots: { kind: number; text: string; index: number; count: number }[] = [];
  for (let i = 0; i < s.acc.count; i++) {
    // Before `finish`, a slot's value is its count.
    const count = s.acc.values[i] as number;
    slots.push({
      kind: s.acc.kinds[i] as number,
      text: text.slice(s.acc.starts[i], s.acc.ends[i]),
      index: s.acc.indices[i] as number,
      count,
    });
  }
  const of = (kind: number) => slots.filter((x) => x.kind === kind).map((x) => x.text);
  return { slots, words: of(KIND.word), bigrams: of(KIND.bigram), symbols: of(KIND.symbol), roles: of(KIND.role), facts: s.facts };
}

describe('tokenizer', () => {
  it('keeps an apostrophe inside a word and ends the word at one that closes it', () => {
    expect(tokenize("don't stop").words).toEqual(["don't", 'stop']);
    expect(tokenize("the dogs' bowls").words).toEqual(['the', 'dogs', 'bowls']);
  });

  it('pairs neighbouring words, but not two stopwords, and pairs the opening word with the start', () => {
    const t = tokenize('cheap offer of the month');
    // The first bigram is the opening word's own ("^ cheap"); "of the" is two stopwords.
    expect(t.bigrams).toEqual(['cheap', 'cheap offer', 'offer of', 'the month']);
  });

  it('gives a word and its inflections one feature (their stem), counted once per occurrence', () => {
    const t = tokenize('offers offer offered');
    expect(t.words).toEqual(['offers']);
    expect(t.slots[0]?.count).toBe(3);
  });

  it('reads text without spaces as character bigrams', () => {
    expect(tokenize('東京都').words).toEqual(['東京', '京都']);
    expect(tokenize('東').words).toEqual(['東']);
  });

  it('makes an emoji (a surrogate pair) one symbol token', () => {
    expect(tokenize('hi 😀!').symbols).toEqual(['😀']);
  });

  it('gives other fields role-tagged tokens without bigrams, and counts a name field’s tokens', () => {
    const t = tokenize('John Smith', 'name');
    expect(t.roles).toEqual(['John', 'Smith']);
    expect(t.bigrams).toEqual([]);
    expect(t.facts.nameTokens).toBe(2);
    // The same word in another role is another feature.
    expect(tokenize('Smith', 'email').slots[0]?.index).not.toBe(tokenize('Smith', 'name').slots[0]?.index);
  });

  it('notices letters spaced out to dodge filters, but not digits', () => {
    expect(tokenize('b u y n o w').facts.spacedLetters).toBe(true);
    expect(tokenize('a b c').facts.spacedLetters).toBe(false);
    expect(tokenize('1 2 3 4 5 6').facts.spacedLetters).toBe(false);
  });

  it('turns every word longer than the limit into one shared token', () => {
    const a = tokenize('x'.repeat(DEFAULT_FEATURE_SETTINGS.maxTokenLength + 1));
    const b = tokenize('y'.repeat(DEFAULT_FEATURE_SETTINGS.maxTokenLength + 9));
    expect(a.slots[0]?.index).toBe(b.slots[0]?.index);
    expect(tokenize('x'.repeat(DEFAULT_FEATURE_SETTINGS.maxTokenLength)).slots[0]?.index).not.toBe(a.slots[0]?.index);
  });

  it('counts gibberish words and keeps three of them as examples', () => {
    const t = tokenize('bcdfgh xkcdqzr qwrtplk zzxxcvb mnbvcxz and a normal sentence');
    expect(t.facts.gibberishWords).toBe(5);
    expect(t.facts.gibberishExamples).toEqual(['bcdfgh', 'xkcdqzr', 'qwrtplk']);
    // Latin words of 6+ letters: the five, "normal" and "sentence".
    expect(t.facts.longLatinWords).toBe(7);
  });
});
