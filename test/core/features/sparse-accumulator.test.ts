import { describe, expect, it } from 'vitest';
import { KIND } from '../../../core/features/kinds.ts';
import { SparseAccumulator } from '../../../core/features/sparse-accumulator.ts';

const BITS = 20;
/** A hash whose feature index is exactly `i`. */
const at = (i: number) => (i << (32 - BITS)) | 0;

describe('SparseAccumulator', () => {
  it('gives each feature one slot, in order of first occurrence, remembering where it first occurred', () => {
    const acc = new SparseAccumulator(BITS);
    acc.add(at(7), KIND.word, 0, 0, 4);
    acc.add(at(3), KIND.word, 1, 2, 5);
    acc.add(at(7), KIND.word, 2, 9, 12);
    expect(acc.count).toBe(2);
    expect([...acc.indices.slice(0, 2)]).toEqual([7, 3]);
    expect([acc.fields[0], acc.starts[0], acc.ends[0]]).toEqual([0, 0, 4]);
  });

  it('log-scales counts and scales each group to unit length', () => {
    const acc = new SparseAccumulator(BITS);
    for (let k = 0; k < 3; k++) acc.add(at(1), KIND.word, 0, 0, 1);
    acc.add(at(2), KIND.word, 0, 0, 1);
    acc.add(at(3), KIND.char, 0, 0, 1);
    acc.finish(0);
    const w = 1 + Math.log(3);
    const norm = Math.hypot(w, 1);
    expect(acc.values[0]).toBeCloseTo(w / norm, 6);
    expect(acc.values[1]).toBeCloseTo(1 / norm, 6);
    // Alone in its group: unit length.
    expect(acc.values[2]).toBeCloseTo(1, 6);
  });

  it('keeps a binary feature at 1 however often it occurs, outside any norm', () => {
    const acc = new SparseAccumulator(BITS);
    for (let k = 0; k < 5; k++) acc.add(at(9), KIND.domain, 0, 0, 1, true);
    acc.add(at(10), KIND.structure, -1, 0, 0, true);
    acc.finish(0);
    expect([...acc.values.slice(0, acc.count)]).toEqual([1, 1]);
  });

  it('speaks less loudly for a short text when a norm floor is set', () => {
    const acc = new SparseAccumulator(BITS);
    acc.add(at(1), KIND.word, 0, 0, 1);
    acc.finish(4);
    expect(acc.values[0]).toBeCloseTo(0.5, 6);
  });

  it('counts right past its table’s first growth, and starts empty again after reset', () => {
    const acc = new SparseAccumulator(BITS);
    const n = 5000;
    for (let pass = 0; pass < 2; pass++) for (let i = 1; i <= n; i++) acc.add(at(i), KIND.word, 0, 0, 1);
    expect(acc.count).toBe(n);
    acc.finish(0);
    // Every feature occurred twice: equal values, the group at unit length.
    expect(acc.values[0]).toBeCloseTo(1 / Math.sqrt(n), 6);
    expect(acc.values[n - 1]).toBeCloseTo(1 / Math.sqrt(n), 6);
    acc.reset();
    acc.add(at(1), KIND.word, 3, 1, 2);
    acc.add(at(1), KIND.word, 3, 1, 2);
    expect(acc.count).toBe(1);
    expect(acc.values[0]).toBe(2);
    expect(acc.fields[0]).toBe(3);
  });
});
