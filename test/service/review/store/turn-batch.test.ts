import { describe, expect, it } from 'vitest';
import { BatchFullError, TurnBatch } from '../../../../service/review/store/turn-batch.ts';

describe('a turn batch with a bound on what waits', () => {
  it('refuses an add past maxWaiting at once, and counts a value as waiting until its flush ends', async () => {
    let release: () => void = () => undefined;
    const flushed: number[][] = [];
    const batch = new TurnBatch<number>(
      async (values) => {
        flushed.push([...values]);
        await new Promise<void>((r) => (release = r));
      },
      { maxBatch: 10, maxFlushing: 1, maxWaiting: 3 },
    );
    const adds = [1, 2, 3].map((v) => batch.add(v));
    await expect(batch.add(4)).rejects.toBeInstanceOf(BatchFullError);
    while (flushed.length === 0) await new Promise((r) => setImmediate(r));
    expect(batch.waiting).toBe(3);
    release();
    await Promise.all(adds);
    expect(batch.waiting).toBe(0);
    expect(flushed).toEqual([[1, 2, 3]]);
  });
});
