import { describe, expect, it } from 'vitest';
import { compileOriginMatcher } from '../../../service/origin/matcher.ts';
import { originHostOf, requestOrigin } from '../../../service/origin/request-origin.ts';
import { parseTenants } from '../../../service/tenants/load.ts';

const allows = (entries: string[], origin: string) => compileOriginMatcher(entries)(originHostOf(requestOrigin({ origin })));

const fileWith = (allowedReferrers: string[]) =>
  JSON.stringify({ accounts: [{ id: 'a', apiKeys: [], forms: [{ id: 'f', allowedReferrers }] }] });

describe('IP literal entries written in a non-canonical form', () => {
  // [entry, Origin header, allowed?]: the entry is read as the URL parser reads the request's host.
  const cases: Array<[string, string, boolean]> = [
    ['[0:0:0:0:0:0:0:1]', 'http://[::1]', true],
    ['[0:0:0:0:0:0:0:1]:3000', 'http://[::1]:3000', true],
    ['[0:0:0:0:0:0:0:1]:3000', 'http://[::1]:3001', false],
    ['[2001:db8:0:0::1]:8443', 'https://[2001:db8::1]:8443', true],
    ['[2001:db8:0:0::1]:8443', 'https://[2001:db8::1]', false],
    ['[2001:DB8::1]', 'https://[2001:db8::1]', true],
    ['[::ffff:127.0.0.1]', 'http://[::ffff:7f00:1]', true],
    ['127.000.000.001', 'http://127.0.0.1', true],
    ['127.000.000.001:5173', 'http://127.0.0.1:5173', true],
    ['0x7f.1', 'http://127.0.0.1:8080', true],
    ['127.000.000.001', 'http://127.0.0.2', false],
  ];
  it.each(cases)('%s against Origin %s → %s', (entry, origin, allowed) => {
    expect(allows([entry], origin)).toBe(allowed);
    // The same through the tenants file, as the service loads it.
    const form = parseTenants(fileWith([entry]), 'tenants.json').forms.get('f');
    expect(form?.allowsOrigin(originHostOf(requestOrigin({ origin })))).toBe(allowed);
  });
});

describe('entries the URL parser cannot read are refused at load, naming the entry', () => {
  it.each([
    ['[:::1]', /is not a host name or IP address the URL parser can read/],
    ['[1.2.3.4]', /is not a host name or IP address the URL parser can read/],
    ['example.123', /is not a host name or IP address the URL parser can read/],
    ['256.0.0.1', /is not a host name or IP address the URL parser can read/],
    ['*.127.0.0.1', /cannot read a host under it/],
  ])('%s', (entry, problem) => {
    let message = '';
    try {
      parseTenants(fileWith(['example.com', entry]), 'conf/tenants.json');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('conf/tenants.json');
    expect(message).toContain(`accounts[0].forms[0].allowedReferrers[1]: ${JSON.stringify(entry)}`);
    expect(message).toMatch(problem);
  });
});
