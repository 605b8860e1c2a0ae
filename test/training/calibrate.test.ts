import { describe, expect, it } from 'vitest';
import { fitPlatt } from '../../training/model/calibrate.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import { seededRandom } from '../../training/data/random.ts';

describe('fitPlatt', () => {
  it('fits the scale of a model that is four times too confident (an undamped Newton step diverges here)', () => {
    const random = seededRandom(7);
    const logits: number[] = [];
    const labels: (0 | 1)[] = [];
    // True log-odds z/4: the fitted a should come out near 0.25.
    for (let i = 0; i < 4000; i++) {
      const z = ((i % 400) - 200) / 10;
      logits.push(z);
      labels.push(random() < sigmoid(z / 4) ? 1 : 0);
    }
    const { a, b } = fitPlatt(logits, labels);
    expect(Math.abs(b)).toBeLessThan(0.3);
    expect(a).toBeGreaterThan(0.15);
    expect(a).toBeLessThan(0.35);
  });
});
