import { describe, expect, it } from 'vitest';
import { foldScales, nbScales, scaleExamples } from '../../training/model/nb-scale.ts';
import type { TrainingExample } from '../../training/model/train-linear.ts';

const ex = (label: 0 | 1, indices: number[], weight = 1): TrainingExample => ({
  indices: Int32Array.from(indices),
  values: Float32Array.from(indices, () => 0.5),
  label,
  weight,
});

// Bucket 0: spam only; 1: both classes alike; 2: legitimate only; 3: never seen.
const examples = [ex(1, [0, 1]), ex(1, [0, 1]), ex(0, [1, 2]), ex(0, [1, 2])];

describe('naive-Bayes feature scaling', () => {
  it('scales a feature by how unevenly it occurs in spam and legitimate examples, never below mix', () => {
    const r = nbScales(examples, 4, { alpha: 1, mix: 0.5 });
    // Both classes hold 4 + 4 smoothed counts, so a feature seen alike in both has a log ratio of 0.
    expect(r[1]).toBeCloseTo(0.5, 6);
    expect(r[3]).toBeCloseTo(0.5, 6);
    expect(r[0]).toBeCloseTo(0.5 + 0.5 * Math.log(3), 6);
    expect(r[2]).toBeCloseTo(r[0] as number, 6);
    // mix 1 turns the scaling off.
    expect([...nbScales(examples, 4, { alpha: 1, mix: 1 })]).toEqual([1, 1, 1, 1]);
  });

  it('counts an example as often as its weight says', () => {
    const weighted = [ex(1, [0]), ex(0, [1], 3)];
    const r = nbScales(weighted, 2, { alpha: 1, mix: 0 });
    const spamTotal = 2 + 1;
    const hamTotal = 2 + 3;
    expect(r[1]).toBeCloseTo(Math.abs(Math.log(1 / spamTotal) - Math.log(4 / hamTotal)), 6);
  });

  it('folded weights score raw input exactly as the trained weights score scaled input', () => {
    const r = nbScales(examples, 4, { alpha: 0.5, mix: 0.5 });
    const w = Float32Array.from([1.5, -0.25, -2, 0.75]);
    const [scaled] = scaleExamples(examples, r);
    const raw = examples[0] as TrainingExample;
    const dot = (weights: Float32Array, e: { indices: Int32Array; values: Float32Array }) =>
      Array.from(e.indices).reduce((s, idx, i) => s + (weights[idx] as number) * (e.values[i] as number), 0);
    expect(dot(foldScales(w, r), raw)).toBeCloseTo(dot(w, scaled as TrainingExample), 6);
    // The inputs are left as they were.
    expect([...raw.values]).toEqual([0.5, 0.5]);
  });
});
