import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { KEY } from '../../support/tenants.ts';
import { ORIGIN, captureLogger, testApp, verifyBody } from '../helpers.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function verifyLine(body: Record<string, unknown>) {
  const capture = captureLogger();
  app = await testApp({ logger: capture.logger });
  const res = await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: body });
  const lines = capture.lines.filter((l) => l.msg === 'verify');
  expect(lines).toHaveLength(1);
  return { res, line: lines[0] ?? {}, text: capture.text() };
}

describe('formId in the verify log line', () => {
  it('is left out when the key is refused, so swapped fields do not log the real key', async () => {
    const { res, line, text } = await verifyLine(verifyBody({ apiKey: 'contact', formId: KEY }));
    expect(res.statusCode).toBe(401);
    expect(line.outcome).toBe('invalid-key');
    expect(line).not.toHaveProperty('formId');
    expect(text).not.toContain(KEY);
  });

  it('is cut to 200 characters, as the 404 body cuts it', async () => {
    const longFormId = 'f'.repeat(60 * 1024);
    const { res, line, text } = await verifyLine(verifyBody({ formId: longFormId }));
    expect(res.statusCode).toBe(404);
    expect(line).toMatchObject({ outcome: 'form-not-found', accountId: 'acme', formId: 'f'.repeat(200) });
    expect(res.json().error).toContain(`"${'f'.repeat(200)}"`);
    expect(text.length).toBeLessThan(2048);
  });

  it('is logged as sent once the key is accepted', async () => {
    const { line } = await verifyLine(verifyBody());
    expect(line).toMatchObject({ outcome: 'legitimate', formId: 'contact' });
  });
});
