import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../../service/resilience/breaker.ts';

// setImmediate too: the breaker judges a timeout after the I/O already received is read.
const FAKE: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] };

afterEach(() => {
  vi.useRealTimers();
});

describe('CircuitBreaker', () => {
  it('releases every call still waiting on a hung dependency to its fallback the moment it opens, not at each own timeout', async () => {
    vi.useFakeTimers(FAKE);
    const breaker = new CircuitBreaker({ failures: 3, callTimeoutMs: 50, openMs: 1000, probe: () => new Promise(() => undefined) });
    const hung = () => new Promise<string>(() => undefined);
    const settledAt: Array<number | undefined> = [];
    const start = Date.now();
    // A hung Redis at 100 requests a second: one call every 10 ms, none ever answered.
    for (let i = 0; i < 5; i++) {
      void breaker.run(hung, () => 'fallback').then(() => (settledAt[i] = Date.now() - start));
      await vi.advanceTimersByTimeAsync(10);
    }
    // The timeout at 50 ms is judged once the I/O already received is read (a setImmediate, which fake timers run
    // 1 ms later).
    await vi.advanceTimersByTimeAsync(1);
    // The first call times out at 50 ms (its caller takes the fallback then) with four more waiting on the same hung
    // dependency, which answered nothing: that is three failures and more, so the circuit opens, and the four are let
    // go at once instead of each at its own timeout.
    expect(breaker.state).toBe('open');
    expect(settledAt).toEqual([50, 51, 51, 51, 51]);
    // And from now on no call waits at all.
    let answered: string | undefined;
    void breaker.run(hung, () => 'fallback').then((v) => (answered = v));
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBe('fallback');
    breaker.close();
  });

  it('stays closed after one slow call when nothing else was waiting, and opens after three in a row', async () => {
    vi.useFakeTimers(FAKE);
    const breaker = new CircuitBreaker({ failures: 3, callTimeoutMs: 50, openMs: 1000, probe: () => new Promise(() => undefined) });
    const hung = () => new Promise<string>(() => undefined);
    for (let i = 1; i <= 3; i++) {
      void breaker.run(hung, () => 'fallback');
      await vi.advanceTimersByTimeAsync(50);
      expect(breaker.state).toBe(i < 3 ? 'closed' : 'open');
    }
    breaker.close();
  });

  it('stays closed on a busy dependency that answers in turn, though calls queued behind a slow one time out with others waiting', async () => {
    vi.useFakeTimers(FAKE);
    let openings = 0;
    const breaker = new CircuitBreaker({
      failures: 3,
      callTimeoutMs: 50,
      openMs: 1000,
      probe: () => Promise.resolve(),
      onChange: (state) => {
        if (state === 'open') openings++;
      },
    });
    // One call served at a time, each taking 30 ms, and a call arriving every 10 ms: the line grows and most calls
    // wait past 50 ms, yet an answer comes every 30 ms. Busy, not sick.
    const line: Array<() => void> = [];
    let serving = false;
    const serveNext = (): void => {
      const next = line.shift();
      if (next === undefined) return void (serving = false);
      serving = true;
      setTimeout(() => {
        next();
        serveNext();
      }, 30);
    };
    const busy = () =>
      new Promise<string>((resolve) => {
        line.push(() => resolve('answer'));
        if (!serving) serveNext();
      });
    const results: string[] = [];
    for (let i = 0; i < 100; i++) {
      void breaker.run(busy, () => 'fallback').then((v) => results.push(v));
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(100);
    // Many calls gave up at their own timeout (their request took the fallback), but none counted as a failure.
    expect(results.filter((r) => r === 'fallback').length).toBeGreaterThan(10);
    expect(openings).toBe(0);
    breaker.close();
  });

  it('still opens at the first timeout once a dependency that was answering stops answering altogether', async () => {
    vi.useFakeTimers(FAKE);
    const breaker = new CircuitBreaker({ failures: 3, callTimeoutMs: 50, openMs: 1000, probe: () => new Promise(() => undefined) });
    // Answers every call within 5 ms for a while, then hangs (SIGSTOP): from then on, nothing answers.
    let hung = false;
    const call = () => new Promise<string>((resolve) => (hung ? undefined : setTimeout(() => resolve('answer'), 5)));
    for (let i = 0; i < 20; i++) {
      void breaker.run(call, () => 'fallback');
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(breaker.state).toBe('closed');
    hung = true;
    const hangAt = Date.now();
    let openedAfter: number | undefined;
    for (let i = 0; i < 20 && openedAfter === undefined; i++) {
      void breaker.run(call, () => 'fallback');
      await vi.advanceTimersByTimeAsync(10);
      if (breaker.state === 'open') openedAfter = Date.now() - hangAt;
    }
    // Within two call timeouts of the last answer: the first calls sent after the hang time out, nothing has answered
    // for 50 ms, and the calls still waiting count too.
    expect(openedAfter).toBeDefined();
    expect(openedAfter).toBeLessThanOrEqual(110);
    breaker.close();
  });

  it('counts a slow answer that arrives late as a sign of life, not of a hang', async () => {
    vi.useFakeTimers(FAKE);
    const breaker = new CircuitBreaker({ failures: 1, callTimeoutMs: 50, openMs: 1000, probe: () => Promise.resolve() });
    // A call every 10 ms whose answer slows from 40 ms to 55 ms: from then on each call times out, but the one sent
    // 10 ms before it has answered (late) within the last 50 ms.
    for (let i = 0; i < 40; i++) {
      const ms = i < 10 ? 40 : 55;
      void breaker.run(
        () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), ms)),
        () => 'fallback',
      );
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(breaker.state).toBe('closed');
    breaker.close();
  });
});
