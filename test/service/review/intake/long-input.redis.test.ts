import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY as API_KEY } from '../../../support/tenants.ts';
import { reviewApp, type ReviewAppFixture } from '../app-fixture.ts';
import { until } from '../../../support/until.ts';

// Submitted text that made the review path (after the answer) quadratic: a long run without '@' or spaces stalled the
// whole service for seconds. In Redis mode, through the real app: every submission is answered, the event loop is
// never held more than 50 ms from the request until the after-answer work is done, and kept fields are cut.
let f: ReviewAppFixture;
const MAX_BLOCK_MS = 50;
/** The fixture's REVIEW_MAX_FIELD_BYTES. */
const FIELD_BYTES = 4096;

beforeAll(async () => {
  f = await reviewApp();
});

afterAll(async () => {
  await f?.close();
});

const ENQUIRY = 'Hello, could you send me a quote for 20 oak chairs delivered to Leeds? Thanks, Ada (ada@example.com)';

type Sent = { status: number; verdict: string; submissionId: string; blockMs: number };

/**
 * Sends the submission (up to three times, as distinct submissions) and waits each time for what the service does after
 * the answer; blockMs is the smallest of the longest event-loop blocks. The work is the same each time, so a block it
 * causes shows in every run (the old pattern: seconds, every time), while a stall of the machine (other processes, other
 * test files running alongside) shows in one at most.
 */
async function verify(payload: Record<string, unknown>): Promise<Sent> {
  let best = await verifyOnce(payload);
  for (let i = 0; i < 2 && best.blockMs >= MAX_BLOCK_MS; i++) {
    const again = await verifyOnce(payload);
    if (again.blockMs < best.blockMs) best = again;
  }
  return best;
}

/** Sends one submission and waits for what the service does after the answer; the longest event-loop block on the way. */
async function verifyOnce(payload: Record<string, unknown>): Promise<Sent> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  try {
    const res = await f.app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: { apiKey: API_KEY, formId: 'contact', payload },
    });
    const body = res.json<{ submissionId: string; status: string }>();
    if (res.statusCode === 200) {
      await f.review.sink.flush();
      // Kept (not queued) or queued: either way the store holds it once the after-answer work is done.
      await until(async () => (await f.review.store.items.get('acme', body.submissionId))?.fieldsKept === true, 'after-answer work done');
    }
    return { status: res.statusCode, verdict: body.status, submissionId: body.submissionId, blockMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}

function utf8Bytes(fields: Record<string, unknown>): number[] {
  return Object.values(fields).map((v) => Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v)));
}

describe('a long unbroken token', () => {
  it('beside a genuine enquiry: answered, the loop never blocked over 50 ms, its kept fields cut and found by search', async () => {
    const r = await verify({ name: 'Ada', message: ENQUIRY, notes: 'a'.repeat(60_000) });
    expect(r).toMatchObject({ status: 200, verdict: 'legitimate' });
    expect(r.blockMs).toBeLessThan(MAX_BLOCK_MS);
    const entry = await f.review.store.items.get('acme', r.submissionId);
    expect(entry).toMatchObject({ queued: false, fieldsKept: true, item: { truncated: true, cutFields: ['notes'] } });
    for (const bytes of utf8Bytes(entry?.item.fields ?? {})) expect(bytes).toBeLessThanOrEqual(FIELD_BYTES);
    const found = await f.review.store.listing.list('acme', { search: 'oak chairs' });
    expect(found.entries.map((e) => e.item.submissionId)).toContain(r.submissionId);
  });

  it('alone, and as 28,000 accented letters: answered, the loop never blocked over 50 ms, kept fields cut', async () => {
    for (const token of ['a'.repeat(60_000), 'é'.repeat(28_000)]) {
      const r = await verify({ message: token });
      expect(r.status).toBe(200);
      expect(r.blockMs).toBeLessThan(MAX_BLOCK_MS);
      const entry = await f.review.store.items.get('acme', r.submissionId);
      for (const bytes of utf8Bytes(entry?.item.fields ?? {})) expect(bytes).toBeLessThanOrEqual(FIELD_BYTES);
    }
  });

  it('flagged (queued for review): answered, the loop never blocked over 50 ms', async () => {
    const r = await verify({ message: `casino ${'@.'.repeat(25_000)}` });
    expect(r).toMatchObject({ status: 200, verdict: 'spam' });
    expect(r.blockMs).toBeLessThan(MAX_BLOCK_MS);
    expect(await f.review.store.items.get('acme', r.submissionId)).toMatchObject({ queued: true, item: { truncated: true } });
  });
});

/** Runs of one character class: what a pattern over text is slow on. */
const CLASSES = ['a', 'Z', 'é', 'ж', '中', '7', '.', '-', '_', '!', '@', '@.', 'a@', '.a', '\u0301', 'e\u0301', '😀', ' ', '\t'];

describe('property: no submission stalls the service', () => {
  it('long runs of one class (letters, accents, digits, punctuation, @, dots, combining marks), mixes, many short fields', async () => {
    const run = fc
      .tuple(fc.constantFrom(...CLASSES), fc.integer({ min: 1_000, max: 24_000 }))
      .map(([c, n]) => c.repeat(Math.max(1, Math.floor(n / c.length))));
    const longToken = fc.tuple(run, fc.constantFrom('', ' ', '@', '.com', ENQUIRY)).map(([r, tail]) => r + tail);
    const manyFields = fc
      .array(fc.string({ unit: fc.constantFrom('a', '@', '.', 'é', ' ', '1'), maxLength: 20 }), { minLength: 100, maxLength: 1_500 })
      .map((values) => Object.fromEntries(values.map((v, i) => [`f${i}`, v])));
    const payload = fc.oneof(
      longToken.map((t) => ({ message: t })),
      fc.tuple(longToken, fc.constantFrom(ENQUIRY)).map(([t, e]) => ({ message: e, notes: t })),
      manyFields,
    );
    await fc.assert(
      fc.asyncProperty(payload, async (p) => {
        const r = await verify(p);
        expect(r.status).toBe(200);
        expect(r.blockMs).toBeLessThan(MAX_BLOCK_MS);
      }),
      { numRuns: 40, seed: 33 },
    );
  }, 120_000);
});
