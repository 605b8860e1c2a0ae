import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { captureLogger, testApp } from '../helpers.ts';
import { rawRequest } from './raw-http.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

// Headers and the start of a body that promises 200 bytes, then nothing more.
const STALLED =
  'POST /v1/verify HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"apiKey":"x",';

describe('REQUEST_TIMEOUT_MS: a request that stops arriving', () => {
  it("is answered 408 in the spec's {error} shape and its connection closed", async () => {
    const logs = captureLogger();
    app = await testApp({ requestTimeoutMs: 300, logger: logs.logger });
    await app.listen({ port: 0, host: '127.0.0.1' });
    // A generous bound: this checks that the connection is let go at all, not how fast.
    const res = await rawRequest(app, STALLED, 15_000);
    expect(res.closed).toBe(true);
    expect(res.statusCode).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringMatching(/^Request timeout/) });
    // Logged as what the client got (before, only a "client error" line with statusCode 400 and ECONNRESET).
    await expect
      .poll(() => logs.lines.filter((l) => l.statusCode === 408).map((l) => l.msg))
      .toEqual(['request timed out before it arrived in full']);
    expect(logs.lines.some((l) => l.statusCode === 400)).toBe(false);
  });
});
