import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormguardClient, type Failure, type VerifyResult } from '../../../clients/js/src/index.js';
import { LEGIT, SPAM, startService, type ServiceProcess } from '../../support/service-process.ts';

const KEY = 'client-test-key-acme-0123456789';
const BRIEF_KEY = 'client-test-key-brief-0123456789';
const TIGHT_KEY = 'client-test-key-tight-0123456789';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const PAGE = 'https://example.com/contact';

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-client-service-'));
  const tenants = path.join(dir, 'tenants.json');
  await writeFile(
    tenants,
    JSON.stringify({
      accounts: [
        { id: 'acme', apiKeys: [{ id: 'backend', sha256: sha256(KEY) }], forms: [{ id: 'contact', allowedReferrers: ['example.com'] }] },
        // One request a second: a 429 whose Retry-After (1 s) fits the client's deadline.
        {
          id: 'brief',
          apiKeys: [{ id: 'k', sha256: sha256(BRIEF_KEY) }],
          rateLimit: { max: 1, windowSeconds: 1, algorithm: 'fixed' },
          forms: [{ id: 'brief-form', allowedReferrers: ['example.com'] }],
        },
        // Two requests a day: a 429 whose Retry-After does not fit.
        {
          id: 'tight',
          apiKeys: [{ id: 'k', sha256: sha256(TIGHT_KEY) }],
          rateLimit: { max: 2, windowSeconds: 86400, algorithm: 'fixed' },
          forms: [{ id: 'tight-form', allowedReferrers: ['example.com'] }],
        },
      ],
    }),
  );
  service = await startService({ TENANTS_FILE: tenants });
});
afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

function client(apiKey = KEY, extra: { onFailure?: (f: Failure) => void } = {}): FormguardClient {
  return new FormguardClient({ baseUrl: service.url, apiKey, ...extra });
}

function expectOutcome<O extends VerifyResult['outcome']>(result: VerifyResult, outcome: O): Extract<VerifyResult, { outcome: O }> {
  expect(result.outcome).toBe(outcome);
  return result as Extract<VerifyResult, { outcome: O }>;
}

describe('@formguard/client against the real service', () => {
  it('returns legitimate (allow) with the service’s own fields, from a backend that sends origin', async () => {
    const r = expectOutcome(await client().verify({ formId: 'contact', payload: LEGIT, origin: PAGE }), 'legitimate');
    expect(r.allow).toBe(true);
    expect(r.status).toBe('legitimate');
    expect(r.submissionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.reasoning).toMatch(/legitimate/i);
    expect(r.modelVersion).toMatch(/^\d{8}-\d{6}$/);
    expect(r.formId).toBe('contact');
  });

  it('returns spam (do not allow) for an SEO pitch, sent as fieldData', async () => {
    const r = expectOutcome(await client().verify({ formId: 'contact', fieldData: SPAM, origin: PAGE }), 'spam');
    expect(r.allow).toBe(false);
    expect(r.confidence).toBeGreaterThan(0.5);
  });

  it('returns blocked with the service’s reason for a page not on the form’s list, and for a backend that sends no origin', async () => {
    const elsewhere = expectOutcome(
      await client().verify({ formId: 'contact', payload: LEGIT, origin: 'https://evil.example/contact' }),
      'blocked',
    );
    expect(elsewhere).toMatchObject({ allow: false, success: false, classification: 'blocked', confidence: 1 });
    expect(elsewhere.reason).toBe('Referrer domain "evil.example" is not allowed for this form');
    const bare = expectOutcome(await client().verify({ formId: 'contact', payload: LEGIT }), 'blocked');
    expect(bare.reason).toMatch(/no Origin or Referer header/);
  });

  it('fails open after one request on an invalid key, and tells onFailure', async () => {
    const failures: Failure[] = [];
    const r = expectOutcome(
      await client('not-a-key-of-this-service', { onFailure: (f) => failures.push(f) }).verify({
        formId: 'contact',
        payload: LEGIT,
        origin: PAGE,
      }),
      'failed-open',
    );
    expect(r).toMatchObject({ allow: true, reason: 'rejected', status: 401, body: { error: 'Invalid API key' }, attempts: 1 });
    expect(failures.map((f) => f.reason)).toEqual(['rejected']);
  });

  it('fails open on an unknown form (404), naming it', async () => {
    const r = expectOutcome(await client().verify({ formId: 'no-such-form', payload: LEGIT, origin: PAGE }), 'failed-open');
    expect(r).toMatchObject({ reason: 'rejected', status: 404 });
    expect(r.message).toContain('no-such-form');
  });

  it('waits out a rate limit whose Retry-After fits the deadline, then returns the verdict', async () => {
    // Every status the service answered, seen through the client's fetch option.
    const statuses: number[] = [];
    const c = new FormguardClient({
      baseUrl: service.url,
      apiKey: BRIEF_KEY,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    // One request a second: of three calls in a row, at least two share a window, so a 429 comes.
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      expect((await c.verify({ formId: 'brief-form', payload: LEGIT, origin: PAGE })).outcome).toBe('legitimate');
      expect(performance.now() - t0).toBeLessThan(6000 + 1000);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
  });

  it('fails open at once, rate-limited, when the limit’s Retry-After is past the deadline', async () => {
    const c = client(TIGHT_KEY);
    for (let i = 0; i < 2; i++) expect((await c.verify({ formId: 'tight-form', payload: LEGIT, origin: PAGE })).outcome).toBe('legitimate');
    const t0 = performance.now();
    const r = expectOutcome(await c.verify({ formId: 'tight-form', payload: LEGIT, origin: PAGE }), 'failed-open');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r).toMatchObject({ allow: true, reason: 'rate-limited', status: 429, attempts: 1, body: { error: 'Rate limit exceeded' } });
    expect((r.body as { retryAfter: number }).retryAfter).toBeGreaterThan(6);
  });

  it('fails open, unreachable, once the service has stopped', async () => {
    const own = await startService();
    const c = new FormguardClient({ baseUrl: own.url, apiKey: 'demo-key-change-me' });
    expect((await c.verify({ formId: 'contact', payload: LEGIT, origin: 'http://localhost:8080/contact' })).outcome).toBe('legitimate');
    await own.stop();
    const t0 = performance.now();
    const r = expectOutcome(await c.verify({ formId: 'contact', payload: LEGIT, origin: 'http://localhost:8080/contact' }), 'failed-open');
    expect(r.reason).toBe('unreachable');
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
