import { request as httpRequest, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RateRule } from '../../../service/rate-limit/types.ts';
import { testApp, verifyBody } from '../helpers.ts';

/** A rate limiter that holds the first request until released: a request in flight when shutdown starts. */
function heldLimiter() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inFlight = new Promise<void>((r) => (entered = r));
  let first = true;
  return {
    release,
    inFlight,
    limiter: {
      async hit(_key: string, _rule: RateRule) {
        if (first) {
          first = false;
          entered();
          await gate;
        }
        return { allowed: true as const };
      },
      async close() {},
    },
  };
}

function post(port: number, agent: Agent): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> {
  const body = JSON.stringify(verifyBody());
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/verify',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('graceful shutdown', () => {
  it('answers a request in flight as usual, closes its keep-alive connection, and lets close() finish', async () => {
    const held = heldLimiter();
    const app = await testApp({ rateLimiter: held.limiter });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const agent = new Agent({ keepAlive: true });
    const answer = post(port, agent);
    await held.inFlight;
    const closed = app.close();
    // Shutdown has begun once the server stops listening (after Fastify's preClose hooks).
    while (app.server.listening) await new Promise((r) => setImmediate(r));
    held.release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'legitimate', formId: 'contact' });
    expect(res.headers.connection).toBe('close');
    expect(res.headers['access-control-allow-origin']).toBe('https://example.com');
    // Without "Connection: close" the idle keep-alive socket holds close() open for Fastify's 72 s keep-alive timeout.
    await closed;
    agent.destroy();
  });

  it('leaves keep-alive alone while the server is up', async () => {
    const app = await testApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const agent = new Agent({ keepAlive: true });
    const res = await post(port, agent);
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('keep-alive');
    agent.destroy();
    await app.close();
  });
});
