import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../../service/resilience/breaker.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('CircuitBreaker', () => {
  it('releases every call still waiting on a hung dependency to its fallback the moment it opens, not at each own timeout', async () => {
    vi.useFakeTimers();
    const breaker = new CircuitBreaker({ failures: 3, callTimeoutMs: 50, openMs: 1000, probe: () => new Promise(() => undefined) });
    const hung = () => new Promise<string>(() => undefined);
    const settledAt: Array<number | undefined> = [];
    const start = Date.now();
    // A hung Redis at 100 requests a second: one call every 10 ms, none ever answered.
    for (let i = 0; i < 5; i++) {
      void breaker.run(hung, () => 'fallback').then(() => (settledAt[i] = Date.now() - start));
      await vi.advanceTimersByTimeAsync(10);
    }
    // The third call times out at 70 ms and opens the circuit; the fourth and fifth (sent at 30 and 40 ms) are let go then.
    await vi.advanceTimersByTimeAsync(70 - 50);
    expect(breaker.state).toBe('open');
    expect(settledAt).toEqual([50, 60, 70, 70, 70]);
    // And from now on no call waits at all.
    let answered: string | undefined;
    void breaker.run(hung, () => 'fallback').then((v) => (answered = v));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBe('fallback');
    breaker.close();
  });
});
