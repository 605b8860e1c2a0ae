import { describe, expect, it } from 'vitest';
import { normalizedText, splitRecords } from '../../training/data/split.ts';
import type { LabelledRecord } from '../../training/data/record.ts';

function rec(id: string, source: string, label: 'spam' | 'legitimate', message: string): LabelledRecord {
  return { id, source, label, fields: { message }, weight: 1 };
}

// 200 records with many repeats that differ only in case, spacing and punctuation.
const records: LabelledRecord[] = [];
for (let i = 0; i < 200; i++) {
  const base = `message number ${i % 120}`;
  const variant = i % 3 === 0 ? base.toUpperCase() : i % 3 === 1 ? `  ${base}!!` : base;
  records.push(rec(`r${i}`, i % 2 ? 'sms' : 'forms', i % 120 < 40 ? 'spam' : 'legitimate', variant));
}

describe('normalizedText', () => {
  it('treats compatibility forms as the same text, whatever their case', () => {
    // NFKC before lower-casing: '№' becomes 'No', full-width 'ＨＥＬＬＯ' becomes 'HELLO'; both must end lower-case.
    expect(normalizedText({ a: '№1 ＨＥＬＬＯ', b: ['Ⅻ'] })).toBe('no1 hello xii');
    expect(normalizedText({ m: 'no1  hello, XII!' })).toBe(normalizedText({ m: '№1 ＨＥＬＬＯ Ⅻ' }));
  });
});

describe('splitRecords', () => {
  const opts = { seed: 7, validation: 0.15, test: 0.15 };

  it('never puts one normalized text on two sides', () => {
    const s = splitRecords(records, opts);
    const side = new Map<string, string>();
    for (const [name, list] of Object.entries({ train: s.train, validation: s.validation, test: s.test })) {
      for (const r of list) {
        const key = normalizedText(r.fields);
        expect(side.get(key) ?? name).toBe(name);
        side.set(key, name);
      }
    }
    // Each text is kept once: 120 distinct texts, the rest counted as duplicates.
    expect(s.train.length + s.validation.length + s.test.length).toBe(120);
    expect(s.duplicates).toBe(80);
  });

  it('is deterministic for a seed and changes with it', () => {
    const ids = (s: ReturnType<typeof splitRecords>) => s.test.map((r) => normalizedText(r.fields)).join();
    expect(ids(splitRecords(records, opts))).toBe(ids(splitRecords([...records].reverse(), opts)));
    expect(ids(splitRecords(records, opts))).not.toBe(ids(splitRecords(records, { ...opts, seed: 8 })));
  });

  it("gives each source and label about its share of test (a text's own hash decides, not a stratified draw)", () => {
    const many: LabelledRecord[] = [];
    for (let i = 0; i < 4000; i++) many.push(rec(`m${i}`, i % 2 ? 'sms' : 'forms', i % 4 < 2 ? 'spam' : 'legitimate', `text ${i}`));
    const s = splitRecords(many, opts);
    for (const src of ['sms', 'forms']) {
      for (const label of ['spam', 'legitimate'] as const) {
        const test = s.test.filter((r) => r.source === src && r.label === label).length;
        // 1000 texts a stratum: 150 expected, 3 standard deviations about 34.
        expect(Math.abs(test - 150)).toBeLessThanOrEqual(34);
      }
    }
  });

  it('counts texts that appear with both labels', () => {
    const s = splitRecords([rec('a', 'x', 'spam', 'Win now'), rec('b', 'x', 'legitimate', 'win now!')], opts);
    expect(s.conflicts).toBe(1);
    expect(s.duplicates).toBe(1);
  });

  it("keeps a moderator's label over a data record of the same text, and the newest of two labels", () => {
    const label = (id: string, l: 'spam' | 'legitimate', at: string): LabelledRecord => ({
      ...rec(id, 'labels', l, 'Cheap SEO for your site'),
      labelledAt: at,
    });
    const all = (s: ReturnType<typeof splitRecords>) => [...s.train, ...s.validation, ...s.test];
    // Folders load in name order, so forms/ comes before labels/: file order must not decide.
    const relabel = splitRecords(
      [rec('f1', 'forms', 'spam', 'cheap seo for your site'), label('sub-1', 'legitimate', '2026-11-20T10:00:00Z')],
      opts,
    );
    expect(all(relabel).map((r) => [r.id, r.label])).toEqual([['sub-1', 'legitimate']]);
    expect(relabel.conflicts).toBe(1);
    const twice = splitRecords(
      [label('sub-2', 'legitimate', '2026-11-21T10:00:00Z'), label('sub-1', 'spam', '2026-11-20T10:00:00Z')],
      opts,
    );
    expect(all(twice).map((r) => [r.id, r.label])).toEqual([['sub-2', 'legitimate']]);
  });
});
