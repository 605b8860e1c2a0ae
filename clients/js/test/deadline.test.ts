import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormguardClient } from '../src/index.js';
import { faultServer, internalErrorBody, json, verdictBody } from './fault-server.js';

/** What the server does with one request. */
const behaviours = [
  'hang',
  'reset',
  '500',
  '503 retry-after 0',
  '503 retry-after 1',
  '429 retry-after 1',
  'verdict after 250 ms',
  'verdict',
] as const;
type Behaviour = (typeof behaviours)[number];

const DEADLINE_MS = 700;

describe('the deadline', () => {
  it('bounds every call, whatever sequence of faults the server answers with', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...behaviours), { minLength: 1, maxLength: 5 }), async (plan: Behaviour[]) => {
        const server = await faultServer((n, res) => {
          const id = `cccccccc-0000-4000-8000-${String(n).padStart(12, '0')}`;
          switch (plan[n] ?? 'verdict') {
            case 'hang':
              return;
            case 'reset':
              return res.socket?.destroy();
            case '500':
              return json(res, 500, internalErrorBody(id));
            case '503 retry-after 0':
              return json(res, 503, internalErrorBody(id), { 'retry-after': '0' });
            case '503 retry-after 1':
              return json(res, 503, internalErrorBody(id), { 'retry-after': '1' });
            case '429 retry-after 1':
              return json(
                res,
                429,
                { error: 'Rate limit exceeded', retryAfter: 1, message: 'wait', processingTime: 0 },
                { 'retry-after': '1' },
              );
            case 'verdict after 250 ms':
              return void setTimeout(() => json(res, 200, verdictBody()), 250);
            case 'verdict':
              return json(res, 200, verdictBody());
          }
        });
        try {
          const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 300, retries: 3, deadlineMs: DEADLINE_MS });
          const t0 = performance.now();
          const result = await client.verify({ formId: 'contact', payload: { message: 'hello' } });
          const ms = performance.now() - t0;
          // Generous for timers on a busy machine; what it rules out is a retry or a wait started past the deadline.
          expect(ms).toBeLessThan(DEADLINE_MS + 400);
          expect(['legitimate', 'failed-open']).toContain(result.outcome);
          expect(result.allow).toBe(true);
          expect(server.seen.length).toBeLessThanOrEqual(4);
        } finally {
          await server.close();
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);
});
