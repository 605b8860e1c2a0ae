import { describe, expect, it } from 'vitest';
import { compileOriginMatcher, referrerEntryProblem } from '../../../service/origin/matcher.ts';
import { requestOrigin, originHostOf, blockedReason } from '../../../service/origin/request-origin.ts';

const LIST = ['example.com', '*.example.org', 'localhost:8080', '127.0.0.1', '[::1]:3000', 'bücher.de'];

// [allowed referrers, Origin header (or undefined), Referer header (or undefined), allowed?]
const cases: Array<[string, string[], string | undefined, string | undefined, boolean]> = [
  ['exact host', LIST, 'https://example.com', undefined, true],
  ['exact host, http', LIST, 'http://example.com', undefined, true],
  ['exact host, any port when the entry names none', LIST, 'https://example.com:8443', undefined, true],
  ['host is case-insensitive', LIST, 'https://EXAMPLE.com', undefined, true],
  ['trailing dot ignored', LIST, 'https://example.com.', undefined, true],
  ['subdomain of an exact entry is not allowed', LIST, 'https://www.example.com', undefined, false],
  ['suffix trick', LIST, 'https://example.com.evil.net', undefined, false],
  ['prefix trick', LIST, 'https://notexample.com', undefined, false],
  ['userinfo trick in Referer', LIST, undefined, 'https://example.com@evil.net/', false],
  ['userinfo trick in Origin', LIST, 'https://example.com@evil.net', undefined, false],
  ['wildcard matches a subdomain', LIST, 'https://www.example.org', undefined, true],
  ['wildcard matches a deep subdomain', LIST, 'https://a.b.example.org', undefined, true],
  ['wildcard does not match the apex', LIST, 'https://example.org', undefined, false],
  ['wildcard does not match a look-alike', LIST, 'https://evilexample.org', undefined, false],
  ['wildcard does not match a suffix trick', LIST, 'https://www.example.org.evil.net', undefined, false],
  ['entry with port: that port', LIST, 'http://localhost:8080', undefined, true],
  ['entry with port: other port', LIST, 'http://localhost:3000', undefined, false],
  ['entry with port: default port', LIST, 'http://localhost', undefined, false],
  ['IPv4', LIST, 'http://127.0.0.1:5173', undefined, true],
  ['IPv6 with port', LIST, 'http://[::1]:3000', undefined, true],
  ['IPv6 other port', LIST, 'http://[::1]:3001', undefined, false],
  ['IDN entry matches punycode origin', LIST, 'https://xn--bcher-kva.de', undefined, true],
  ['Referer used when there is no Origin', LIST, undefined, 'https://example.com/contact?x=1', true],
  ['Origin wins over Referer', LIST, 'https://evil.net', 'https://example.com/contact', false],
  ['Origin: null is blocked', LIST, 'null', 'https://example.com/', false],
  ['unparsable Origin', LIST, 'not a url', undefined, false],
  ['empty Origin', LIST, '', undefined, false],
  ['no header at all', LIST, undefined, undefined, false],
  ['two Origin values joined', LIST, 'https://example.com, https://evil.net', undefined, false],
  ['"*" matches anything', ['*'], 'https://evil.net', undefined, true],
  ['"*" matches a missing origin', ['*'], undefined, undefined, true],
  ['"*" matches Origin: null', ['*'], 'null', undefined, true],
  ['empty list blocks everything', [], 'https://example.com', undefined, false],
  ['entry trailing dot and case', ['Example.COM.'], 'https://example.com', undefined, true],
  ['https default port matches entry :443', ['example.com:443'], 'https://example.com', undefined, true],
  ['http default port does not match entry :443', ['example.com:443'], 'http://example.com', undefined, false],
  ['wildcard with port', ['*.example.org:8443'], 'https://a.example.org:8443', undefined, true],
  ['wildcard with port, other port', ['*.example.org:8443'], 'https://a.example.org', undefined, false],
];

describe('origin matching', () => {
  it.each(cases)('%s', (_name, entries, origin, referer, allowed) => {
    const matcher = compileOriginMatcher(entries);
    const headers: Record<string, string> = {};
    if (origin !== undefined) headers.origin = origin;
    if (referer !== undefined) headers.referer = referer;
    expect(matcher(originHostOf(requestOrigin(headers)))).toBe(allowed);
  });
});

describe('referrer entries', () => {
  it.each(['*', 'example.com', 'localhost:8080', '*.example.org', '127.0.0.1', '[::1]', '[::1]:8080', 'bücher.de', 'example.com.'])(
    'accepts %s',
    (entry) => {
      expect(referrerEntryProblem(entry)).toBeUndefined();
    },
  );
  it.each([
    'https://example.com',
    'example.com/path',
    '',
    'exa mple.com',
    '*example.com',
    'a.*.example.com',
    'example.com:99999',
    'example.com:',
    '*.',
    '**',
  ])('rejects %j', (entry) => {
    expect(referrerEntryProblem(entry)).toEqual(expect.any(String));
  });
});

describe('blocked reason', () => {
  it('names the host', () => {
    expect(blockedReason(requestOrigin({ origin: 'https://evil.net:8443' }))).toContain('"evil.net:8443"');
    expect(blockedReason(requestOrigin({ referer: 'https://Evil.NET/page' }))).toContain('"evil.net"');
  });
  it('says when no header came', () => {
    expect(blockedReason(requestOrigin({}))).toMatch(/no Origin or Referer/);
  });
  it('quotes an unusable header, cut short', () => {
    const reason = blockedReason(requestOrigin({ origin: 'null' }));
    expect(reason).toContain('"null"');
    expect(blockedReason(requestOrigin({ origin: 'x'.repeat(5000) })).length).toBeLessThan(250);
  });
});
