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
    // The first call times out at 50 ms with four more waiting on the same hung dependency: that is three failures and
    // more, so the circuit opens then, and the four are let go at once instead of each at its own timeout.
    expect(breaker.state).toBe('open');
    expect(settledAt).toEqual([50, 50, 50, 50, 50]);
    // And from now on no call waits at all.
    let answered: string | undefined;
    void breaker.run(hung, () => 'fallback').then((v) => (answered = v));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBe('fallback');
    breaker.close();
  });

  it('stays closed after one slow call when nothing else was waiting, and opens after three in a row', async () => {
    vi.useFakeTimers();
    const breaker = new CircuitBreaker({ failures: 3, callTimeoutMs: 50, openMs: 1000, probe: () => new Promise(() => undefined) });
    const hung = () => new Promise<string>(() => undefined);
    for (let i = 1; i <= 3; i++) {
      void breaker.run(hung, () => 'fallback');
      await vi.advanceTimersByTimeAsync(50);
      expect(breaker.state).toBe(i < 3 ? 'closed' : 'open');
    }
    breaker.close();
  });
});
