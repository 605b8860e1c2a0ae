import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parseEnv } from '../../../service/config/env.ts';
import { ORIGIN, testApp, verifyBody } from '../helpers.ts';

const LOAD_BALANCER = '10.1.1.1';
const RULE = { max: 3, windowMs: 60_000, algorithm: 'fixed' as const };

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A failed key check through a load balancer that appends the address it saw to X-Forwarded-For. */
function guess(a: FastifyInstance, forwardedFor: string, remoteAddress = LOAD_BALANCER) {
  return a.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { ...ORIGIN, 'x-forwarded-for': forwardedFor },
    payload: verifyBody({ apiKey: 'guess' }),
    remoteAddress,
  });
}

describe('failed-key limit behind a proxy (TRUST_PROXY)', () => {
  it('with hops:1, spoofed leftmost X-Forwarded-For entries do not reset the count of the real client IP', async () => {
    app = await testApp({ trustProxy: parseEnv({ TRUST_PROXY: 'hops:1' }).TRUST_PROXY, keyFailureRule: RULE });
    const codes: number[] = [];
    for (let i = 1; i <= 5; i++) codes.push((await guess(app, `10.0.0.${i}, 203.0.113.7`)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429, 429]);
    // Another real client behind the same balancer is not blocked.
    expect((await guess(app, '10.0.0.1, 198.51.100.20')).statusCode).toBe(401);
  });

  it("with the balancer's address listed, spoofed entries do not reset the count, and a direct client cannot pick its IP", async () => {
    app = await testApp({ trustProxy: parseEnv({ TRUST_PROXY: '10.1.0.0/16' }).TRUST_PROXY, keyFailureRule: RULE });
    const codes: number[] = [];
    for (let i = 1; i <= 4; i++) codes.push((await guess(app, `10.0.0.${i}, 203.0.113.7`)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);

    const direct: number[] = [];
    for (let i = 1; i <= 4; i++) direct.push((await guess(app, `192.0.2.${i}`, '198.51.100.99')).statusCode);
    expect(direct).toEqual([401, 401, 401, 429]);
  });
});
