import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../training/model/backend.ts';
import { compactExamples, trainLinear, type TrainingExample } from '../../training/model/train-linear.ts';

const ex = (label: 0 | 1, indices: number[]): TrainingExample => ({
  indices: Int32Array.from(indices),
  values: Float32Array.from(indices, () => 1),
  label,
  weight: 1,
});

beforeAll(async () => {
  await initBackend(undefined);
});

describe('training on the buckets the examples use', () => {
  it('re-indexes examples onto a compact range and remembers where each bucket came from', () => {
    const { examples, used } = compactExamples([ex(1, [900, 5]), ex(0, [5, 70])], 1024);
    expect([...used]).toEqual([900, 5, 70]);
    expect(examples.map((e) => [...e.indices].map((j) => used[j]))).toEqual([
      [900, 5],
      [5, 70],
    ]);
    expect(Math.max(...examples.flatMap((e) => [...e.indices]))).toBe(2);
  });

  it('returns a full-size table: each learnt weight in its own bucket, every unused bucket exactly 0', () => {
    // Bucket 900 marks spam, 70 legitimate; 5 is in both.
    const data = [ex(1, [900, 5]), ex(1, [900, 5]), ex(0, [70, 5]), ex(0, [70, 5])];
    const { weights } = trainLinear(data, { dimension: 1024, epochs: 20, batchSize: 4, learningRate: 0.1, l2: 0, seed: 1 });
    expect(weights).toHaveLength(1024);
    expect(weights[900]).toBeGreaterThan(0.5);
    expect(weights[70]).toBeLessThan(-0.5);
    expect(Math.abs(weights[5] as number)).toBeLessThan(Math.abs(weights[900] as number));
    expect([...weights].filter((w, i) => w !== 0 && ![5, 70, 900].includes(i))).toEqual([]);
  });
});
