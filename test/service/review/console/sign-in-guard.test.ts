import { describe, expect, it } from 'vitest';
import { SignInGuard } from '../../../../service/review/console/sign-in-guard.ts';

const WINDOW = 5 * 60_000;

function guard(capacity?: number) {
  let now = 1_000_000;
  const g = new SignInGuard(10, WINDOW, () => now, capacity);
  return { g, advance: (ms: number) => (now += ms) };
}

function failTimes(g: SignInGuard, ip: string, n: number): void {
  for (let i = 0; i < n; i++) g.fail(ip);
}

describe('the console sign-in guard', () => {
  it('blocks an address after ten failures until its window ends', () => {
    const { g, advance } = guard(100);
    failTimes(g, '203.0.113.9', 9);
    expect(g.blocked('203.0.113.9')).toBe(false);
    g.fail('203.0.113.9');
    expect(g.blocked('203.0.113.9')).toBe(true);
    advance(WINDOW);
    expect(g.blocked('203.0.113.9')).toBe(false);
  });

  it('keeps a block when more addresses fail than it has room for', () => {
    // Before, one failure from each of 10,001 addresses cleared the whole table, this block included.
    const { g } = guard();
    failTimes(g, '203.0.113.9', 10);
    for (let i = 0; i < 30_000; i++) g.fail(`2001:db8::${i.toString(16)}`);
    expect(g.blocked('203.0.113.9')).toBe(true);
  });

  it('stays within its capacity even when every entry is a block, dropping the oldest first', () => {
    const { g, advance } = guard(10);
    const ips = Array.from({ length: 11 }, (_, i) => `192.0.2.${i}`);
    for (const ip of ips) {
      failTimes(g, ip, 10);
      advance(1_000);
    }
    // Over capacity (11 > 10), the table shrank to 90%: the two oldest blocks went, the newest stayed.
    expect(ips.map((ip) => g.blocked(ip))).toEqual([false, false, ...Array<boolean>(9).fill(true)]);
  });
});
