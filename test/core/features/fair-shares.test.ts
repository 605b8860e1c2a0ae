import { describe, expect, it } from 'vitest';
import { fairShares } from '../../../core/features/fair-shares.ts';

describe('fairShares', () => {
  it('reads everything when it fits', () => {
    expect(fairShares([10, 20], 30)).toBeNull();
  });

  it('gives a short field all it needs and the long ones equal shares of the rest', () => {
    expect(fairShares([20_000, 300, 20_000], 20_000)).toEqual([9_850, 300, 9_850]);
  });

  it('never gives more than the budget', () => {
    const shares = fairShares([7, 7, 7], 10) as number[];
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10);
    expect(shares).toEqual([3, 3, 4]);
  });
});
