import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../../service/config/env.ts';

describe("TRUST_PROXY: false, true, a hop count or the proxies' addresses", () => {
  it('keeps true/1 and false/0', () => {
    expect(parseEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
  });

  it('reads hops:<n> as a hop count', () => {
    expect(parseEnv({ TRUST_PROXY: 'hops:1' }).TRUST_PROXY).toEqual({ hops: 1 });
    expect(parseEnv({ TRUST_PROXY: 'hops:2' }).TRUST_PROXY).toEqual({ hops: 2 });
  });

  it('reads a comma-separated list of proxy IPs and CIDRs', () => {
    expect(parseEnv({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,2001:db8::/32,loopback' }).TRUST_PROXY).toEqual({
      proxies: ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', 'loopback'],
    });
  });

  it.each([
    ['2', /hops:2/],
    ['hops:0', /n ≥ 1/],
    ['hops:', /TRUST_PROXY/],
    ['yes', /TRUST_PROXY/],
    ['10.0.0.0/33', /TRUST_PROXY/],
    ['10.0.0.0/0', /TRUST_PROXY/],
    ['10.0.0.1,', /TRUST_PROXY/],
    ['10.0.0.1,proxy.internal', /"proxy\.internal" is not an IP address or CIDR/],
  ])('stops start-up on %j, naming the variable', (value, message) => {
    expect(() => parseEnv({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => parseEnv({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    expect(() => parseEnv({ TRUST_PROXY: value })).toThrow(message);
  });
});

describe('REQUEST_TIMEOUT_MS', () => {
  it('defaults to 30 s; 0 turns it off; a negative or fractional value stops start-up', () => {
    expect(parseEnv({}).REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(parseEnv({ REQUEST_TIMEOUT_MS: '0' }).REQUEST_TIMEOUT_MS).toBe(0);
    expect(parseEnv({ REQUEST_TIMEOUT_MS: '5000' }).REQUEST_TIMEOUT_MS).toBe(5000);
    expect(() => parseEnv({ REQUEST_TIMEOUT_MS: '-1' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => parseEnv({ REQUEST_TIMEOUT_MS: '1.5' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => parseEnv({ REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });
});
