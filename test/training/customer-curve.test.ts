import { describe, expect, it } from 'vitest';
import { accountLabel, customerCurve, isSelfPromotion, type CustomerItem } from '../../training/experiments/customer-curve.ts';

describe('the customer learning curve', () => {
  it('calls a commenter promoting their own channel, music or page self-promotion, and a fan comment not', () => {
    for (const t of [
      'Check out my channel please',
      'subscribe to me and I will sub back',
      'Go listen to my new song',
      'please visit our page',
    ])
      expect(isSelfPromotion(t), t).toBe(true);
    for (const t of ['I love this song so much', 'Katy is the best singer ever', 'Check out this video on YouTube:'])
      expect(isSelfPromotion(t), t).toBe(false);
  });

  it('lets only the policy-differs account call self-promotion legitimate, and only that kind of spam', () => {
    expect(accountLabel('policy-differs', 1, true)).toBe(0);
    expect(accountLabel('policy-differs', 1, false)).toBe(1);
    expect(accountLabel('labelling', 1, true)).toBe(1);
    expect(accountLabel('policy-differs', 0, false)).toBe(0);
  });

  it('scores each step on the items after its labels, and stops when fewer than 60 are left', () => {
    // The global model right on every item: no account's labels beat it, so both keep it.
    const items: CustomerItem[] = Array.from({ length: 150 }, (_, i) => ({
      indices: Int32Array.of(i % 2),
      values: Float32Array.of(1),
      globalLogit: i % 2 === 0 ? 4 : -4,
      label: i % 2 === 0 ? 1 : 0,
      selfPromotion: false,
    }));
    const points = customerCurve('site', items, 0.5);
    expect(points.map((p) => [p.labelled, p.rest])).toEqual([
      [25, 125],
      [50, 100],
    ]);
    for (const p of points) {
      expect(p.accounts.labelling.fitted).toBe(false);
      expect(p.accounts.labelling.corrected).toEqual(p.accounts.labelling.global);
      expect(p.accounts.labelling.global.f1).toBe(1);
    }
  });
});
