import { describe, expect, it } from 'vitest';
import { dequantize, floatWeights, quantizeUint8 } from '../../../core/classifier/hashed-weights.ts';
import { LinearScorer } from '../../../core/classifier/linear-scorer.ts';

describe('uint8 hashed weights', () => {
  const values = Float32Array.from([0, 0.5, -0.25, 3.2, -3.2, 0.001, 0, -1.7]);
  const q = quantizeUint8(values);

  it('keeps unused buckets exactly 0 and every weight within half a step', () => {
    const back = dequantize(q);
    expect(back[0]).toBe(0);
    expect(back[6]).toBe(0);
    values.forEach((v, i) => expect(Math.abs((back[i] as number) - v)).toBeLessThanOrEqual(q.scale / 2 + 1e-7));
    expect(Math.min(...Array.from(q.table))).toBeGreaterThanOrEqual(1);
    expect(Math.max(...Array.from(q.table))).toBeLessThanOrEqual(255);
  });

  it('scores the same as the float32 weights TF.js dequantizes them to', () => {
    const x = { indices: Int32Array.from([1, 3, 5, 7]), values: Float32Array.from([0.5, 0.5, 0.25, 1]) };
    const quantized = new LinearScorer(q, 1.3, -0.2);
    const float = new LinearScorer(floatWeights(dequantize(q)), 1.3, -0.2);
    expect(quantized.logit(x)).toBe(float.logit(x));
  });

  it('quantizes an all-zero table without dividing by zero', () => {
    const z = quantizeUint8(new Float32Array(4));
    expect(Array.from(dequantize(z))).toEqual([0, 0, 0, 0]);
  });
});
