import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { verifyRequestSchema } from '../../../service/verify/schema.ts';
import { KEY } from '../../support/tenants.ts';
import { ORIGIN, testApp } from '../helpers.ts';

let app: FastifyInstance;
beforeAll(async () => {
  // A generous key-failure limit: this test is about bodies, not about guessing.
  app = await testApp({ keyFailureRule: { max: 1_000_000, windowMs: 60_000, algorithm: 'fixed' }, bodyLimit: 16 * 1024 });
});
afterAll(() => app.close());

const anyValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 })),
  fc.jsonValue({ maxDepth: 3 }),
);

// Near-misses of a valid body: each field missing, mistyped or right, plus random extra fields.
const nearMiss = fc
  .record(
    {
      apiKey: fc.oneof(fc.constant(KEY), fc.constant(''), anyValue),
      formId: fc.oneof(fc.constant('contact'), fc.constant(''), anyValue),
      payload: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), anyValue),
      fieldData: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  )
  .map((r) => JSON.stringify(r))
  .filter((text) => !verifyRequestSchema.safeParse(JSON.parse(text)).success);

const notAnObject = fc
  .jsonValue({ maxDepth: 3 })
  .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
  .map((v) => JSON.stringify(v));

// Broken JSON: a valid-looking body cut, or with a byte flipped, or plain noise.
const brokenJson = fc.oneof(
  fc
    .tuple(fc.constant(JSON.stringify({ apiKey: KEY, formId: 'contact', payload: { message: 'hello there' } })), fc.nat())
    .map(([s, n]) => s.slice(0, n % (s.length - 1))),
  fc
    .tuple(
      fc.constant(JSON.stringify({ apiKey: KEY, formId: 'contact', payload: { m: 'x' } })),
      fc.nat(),
      fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', ']'),
    )
    .map(([s, n, ch]) => s.slice(0, n % s.length) + ch + s.slice((n % s.length) + 1))
    .filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  fc.string({ minLength: 1 }).filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  }),
);

describe('1,000 random malformed bodies', () => {
  it('each get a documented 4xx JSON error (400, or 413 when too large), never a 500, never a crash', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearMiss, notAnObject, brokenJson), async (text) => {
        const res = await app.inject({
          method: 'POST',
          url: '/v1/verify',
          headers: { ...ORIGIN, 'content-type': 'application/json' },
          payload: text,
        });
        seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
        expect(Buffer.byteLength(text) > 16 * 1024 ? [400, 413] : [400]).toContain(res.statusCode);
        const body = res.json();
        expect(typeof body.error).toBe('string');
        expect(body.error).toContain('either payload or fieldData');
      }),
      { numRuns: 1000 },
    );
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(1000);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('the compiled JSON schema accepts exactly what the zod schema accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            apiKey: fc.oneof(fc.constant('nope'), anyValue),
            formId: fc.oneof(fc.constant('contact'), anyValue),
            payload: anyValue,
            fieldData: anyValue,
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          // Fastify refuses prototype-poisoning keys outright (a 400 zod would not give); not this property's concern.
          fc.pre(!/"(__proto__|constructor)"/.test(JSON.stringify(body)));
          const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: body });
          const zodAccepts = verifyRequestSchema.safeParse(body).success;
          // Past the body check, a wrong key or form answers 401/404: anything but a 400.
          expect(res.statusCode === 400).toBe(!zodAccepts);
        },
      ),
      { numRuns: 300 },
    );
  });
});
