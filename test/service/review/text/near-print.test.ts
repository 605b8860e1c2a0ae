import { describe, expect, it } from 'vitest';
import { FNV_OFFSET, hashString } from '../../../../core/features/hash.ts';
import {
  BANDS,
  MIN_SHARED,
  MIN_WORDS,
  nearPrint,
  nearPrintOfWords,
  ROWS,
  sharedValues,
  SIGNATURE_SIZE,
  type NearPrint,
} from '../../../../service/review/text/near-print.ts';
import { searchWords } from '../../../../service/review/text/words.ts';
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

/** The fingerprint as first defined, written plainly (a Set of shingle hashes, each joined pair hashed as text): the reference. */
function plainPrint(formId: string, words: readonly string[]): NearPrint | undefined {
  const fnv = (text: string, seed = FNV_OFFSET) => hashString(text, seed) >>> 0;
  const mix = (x: number) => {
    let h = x >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
    return h >>> 0;
  };
  const seeds = Array.from({ length: SIGNATURE_SIZE }, (_, i) => mix(0x9e3779b9 + i * 0x7f4a7c15));
  const inAddress = new Set(words.filter((w) => w.includes('@')).flatMap((w) => w.split(/[@.]/)));
  const tokens = [
    ...words.filter((w) => w.includes('@')).map(() => '@'),
    ...words.filter((w) => !w.includes('@') && !inAddress.has(w)).map((w) => (/\p{N}/u.test(w) ? '#' : w)),
  ];
  if (tokens.filter((t) => t !== '#' && t !== '@').length < MIN_WORDS) return undefined;
  const shingles = new Set<number>();
  tokens.forEach((t, i) => {
    shingles.add(fnv(t));
    if (i + 1 < tokens.length) shingles.add(fnv(`${t} ${tokens[i + 1] as string}`));
  });
  const hex = seeds.map((seed) =>
    Math.min(...[...shingles].map((s) => mix(s ^ seed)))
      .toString(16)
      .padStart(8, '0'),
  );
  const form = fnv1Hex(fnv(formId));
  const bands = Array.from(
    { length: BANDS },
    (_, b) => `${b}:${fnv(hex.slice(b * ROWS, (b + 1) * ROWS).join(''), fnv(form)).toString(16)}`,
  );
  return { signature: hex.join(''), bands };
}

function fnv1Hex(x: number): string {
  return x.toString(16).padStart(8, '0');
}

describe('the near-duplicate fingerprint', () => {
  it('is, value for value, the plain MinHash definition (signatures stored before must still match)', () => {
    const texts = [
      ...VARIED_MESSAGES,
      ...Array.from({ length: 20 }, (_, i) => Object.values(floodFields(i)).join(' ')),
      'Ünïcode façade naïve résumé coöperate 日本語 テキスト ½ ² ٣ order 4711 contact me at jane.doe@example.org or bob@x.co now please',
      Array.from({ length: 200 }, (_, i) => `w${i % 37}x ${'zq'.repeat(1 + (i % 5))}`).join(' '),
    ];
    for (const text of texts) {
      const words = searchWords({ message: text });
      expect(nearPrintOfWords('contact', words)).toEqual(plainPrint('contact', words));
    }
    expect(texts.filter((t) => plainPrint('contact', searchWords({ message: t })) !== undefined).length).toBeGreaterThan(20);
  });

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
