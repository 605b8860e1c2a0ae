import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../training/model/backend.ts';
import { mlpLogit, trainMlp } from '../../training/model/train-mlp.ts';
import { foldRowScales } from '../../training/experiments/families.ts';
import type { TrainingExample } from '../../training/model/train-linear.ts';

const ex = (label: 0 | 1, indices: number[]): TrainingExample => ({
  indices: Int32Array.from(indices),
  values: Float32Array.from(indices, () => 1),
  label,
  weight: 1,
});

beforeAll(async () => {
  await initBackend('cpu');
});

describe('the hashed MLP', () => {
  // Bucket 900 marks spam and 70 legitimate only together with 5: an interaction a linear model cannot draw.
  const data = [ex(1, [900, 5]), ex(0, [900]), ex(0, [70, 5]), ex(1, [70]), ex(1, [900, 5]), ex(0, [900]), ex(0, [70, 5]), ex(1, [70])];
  const m = trainMlp(data, { dimension: 1024, hidden: 16, epochs: 200, batchSize: 8, learningRate: 0.01, l2: 0, seed: 3 });

  it('learns what its buckets mean, interactions included', () => {
    for (const e of data) expect(Math.sign(mlpLogit(m, e)), `${[...e.indices]}`).toBe(e.label === 1 ? 1 : -1);
  });

  it('returns a full table, row per bucket, with every unused row exactly 0', () => {
    expect(m.embeddings).toHaveLength(1024 * 16);
    const nonZeroRows = new Set<number>();
    m.embeddings.forEach((w, i) => w !== 0 && nonZeroRows.add(Math.floor(i / 16)));
    expect([...nonZeroRows].sort((a, b) => a - b)).toEqual([5, 70, 900]);
  });

  it('scores scaled inputs with folded rows exactly as it scored the scaled inputs', () => {
    const scales = new Float32Array(1024).fill(1);
    scales[900] = 2.5;
    scales[5] = 0.5;
    const folded = foldRowScales(m, scales);
    const x = ex(1, [900, 5]);
    const scaled = { indices: x.indices, values: Float32Array.from(x.indices, (i) => scales[i] as number) };
    expect(mlpLogit(folded, x)).toBeCloseTo(mlpLogit(m, scaled), 5);
  });
});
