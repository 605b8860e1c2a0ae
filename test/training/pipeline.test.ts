import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE_WEIGHTS, sourceWeight } from '../../training/pipeline.ts';

describe('sourceWeight', () => {
  it('weighs a record by its source, 1 for a source not named', () => {
    expect(sourceWeight(DEFAULT_SOURCE_WEIGHTS, 'forms', 'legitimate')).toBe(6);
    expect(sourceWeight(DEFAULT_SOURCE_WEIGHTS, 'forms', 'spam')).toBe(6);
    expect(sourceWeight(DEFAULT_SOURCE_WEIGHTS, 'sms', 'spam')).toBe(1);
  });

  it('takes a weight for a source and label before the source weight', () => {
    const w = { forms: 6, 'forms:legitimate': 9, 'sms:spam': 2 };
    expect(sourceWeight(w, 'forms', 'legitimate')).toBe(9);
    expect(sourceWeight(w, 'forms', 'spam')).toBe(6);
    expect(sourceWeight(w, 'sms', 'spam')).toBe(2);
    expect(sourceWeight(w, 'sms', 'legitimate')).toBe(1);
  });
});
