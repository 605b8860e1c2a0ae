import { describe, expect, it } from 'vitest';
import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import { compareModels, renderComparison } from '../../training/model/compare.ts';
import { mcnemarExact } from '../../training/model/mcnemar.ts';
import type { LabelledRecord } from '../../training/data/record.ts';

/** A model that gives each record the spam probability in its `p` field, at `threshold`. */
function fake(version: string, threshold: number): LinearClassifier {
  return {
    modelVersion: version,
    manifest: { threshold },
    spamProbability: (f: Record<string, unknown>) => f.p as number,
  } as unknown as LinearClassifier;
}

const rec = (id: string, label: 'spam' | 'legitimate', p: number, source = 'forms'): LabelledRecord => ({
  id,
  source,
  label,
  fields: { p },
  weight: 1,
});

describe('compare', () => {
  it("counts, record by record, what the candidate fixes and breaks, with McNemar's exact p", () => {
    // Current flags at 0.5, the candidate at 0.8: spam at 0.6 is broken, legitimate at 0.6 and 0.7 are fixed.
    const records = [
      rec('s1', 'spam', 0.9), // both right
      rec('s2', 'spam', 0.6), // broken
      rec('s3', 'spam', 0.3), // both wrong
      rec('l1', 'legitimate', 0.6), // fixed
      rec('l2', 'legitimate', 0.7), // fixed
      rec('l3', 'legitimate', 0.1), // both right
      rec('l4', 'legitimate', 0.75, 'sms'), // fixed
    ];
    const c = compareModels(fake('A', 0.5), fake('B', 0.8), records);
    expect(c.paired).toEqual({ n: 7, bothRight: 2, bothWrong: 1, fixed: ['l1', 'l2', 'l4'], broken: ['s2'] });
    // Two-sided exact binomial on 3 vs 1: 2 * (1 + 4) / 16.
    expect(c.pValue).toBeCloseTo(0.625, 10);
    // Forms: F1 0.571 -> 0.5 (worse, though its FPR falls 2/3 -> 0); SMS: FPR 1 -> 0; all: F1 0.5 -> 0.5, FPR falls.
    expect(c.worseOn).toEqual(['forms']);
    const text = renderComparison(c).join('\n');
    expect(text).toContain('fixed by B  3: l1, l2, l4');
    expect(text).toContain('broken by B 1: s2');
    expect(text).toContain('p = 0.6250 (the difference is within what chance gives)');
    expect(text).toMatch(/^WARNING: B is worse than A on forms \(/m);
  });

  it('McNemar: a one-sided split of 10 is significant, an even one is not, none is p = 1', () => {
    expect(mcnemarExact(10, 0)).toBeCloseTo(2 / 1024, 12);
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    // Large counts stay finite (log space): 600 vs 400 is far from chance.
    expect(mcnemarExact(600, 400)).toBeGreaterThan(0);
    expect(mcnemarExact(600, 400)).toBeLessThan(1e-9);
  });

  it('no warning when the candidate is at least as good everywhere', () => {
    const c = compareModels(fake('A', 0.5), fake('B', 0.5), [rec('s', 'spam', 0.9), rec('l', 'legitimate', 0.1)]);
    expect(c.worseOn).toEqual([]);
    expect(renderComparison(c).join('\n')).not.toContain('WARNING');
  });
});
