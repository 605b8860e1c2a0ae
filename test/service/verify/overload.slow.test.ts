import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../service/app.ts';
import { Admission, type Ticket } from '../../../service/verify/admission.ts';
import { ALLOWED, type RateLimiter } from '../../../service/rate-limit/types.ts';
import { KEY, tenantsFile } from '../../support/tenants.ts';
import { stubClassifier, tenants } from '../helpers.ts';

const ORIGIN = 'https://example.com';

function verifyBody(size: number): string {
  const base = { apiKey: KEY, formId: 'contact', payload: { name: 'Ann', message: '' } };
  const pad = size - Buffer.byteLength(JSON.stringify(base));
  return JSON.stringify({ ...base, payload: { name: 'Ann', message: 'x'.repeat(Math.max(0, pad)) } });
}

/** Sends the headers and half the body of a verify request, and holds the rest until `finish()`. */
function heldRequest(port: number, body: string): { finish: () => Promise<number | undefined>; socket: Socket } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString()));
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /v1/verify HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    socket,
    finish: async () => {
      socket.write(body.slice(half));
      while (!/\r\n\r\n/.test(text) && !socket.destroyed) await new Promise((r) => setTimeout(r, 10));
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      return m === null ? undefined : Number(m[1]);
    },
  };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function listen(deps: Partial<Parameters<typeof buildApp>[0]>): Promise<number> {
  app = await buildApp({ tenants: tenants(), classifier: stubClassifier(), logger: false, ...deps });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

describe('shedding verify under load', () => {
  it('holds a verify request past MAX_VERIFY_IN_FLIGHT unread, answers it 503 after MAX_VERIFY_WAIT_MS, keeps /healthz up, and lets the held ones finish', async () => {
    const port = await listen({ maxVerifyInFlight: 2, maxVerifyWaitMs: 200 });
    const body = verifyBody(20_000);
    const held = [heldRequest(port, body), heldRequest(port, body)];
    // Both held requests are in (their onRequest ran) once a third one waits its 200 ms and is turned away.
    let status = 0;
    let answer: Response | undefined;
    for (let i = 0; i < 100 && status !== 503; i++) {
      answer = await fetch(`http://127.0.0.1:${port}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body,
      });
      status = answer.status;
      if (status !== 503) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(503);
    expect(answer?.headers.get('retry-after')).toBe('5');
    expect(await answer?.json()).toMatchObject({ error: 'Internal server error', status: 'error', confidence: 0 });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await Promise.all(held.map((h) => h.finish()))).toEqual([200, 200]);
    // Their slots are free again.
    const after = await fetch(`http://127.0.0.1:${port}/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      body,
    });
    expect(after.status).toBe(200);
  });

  it('with its slots taken, answers a burst of 50 complete requests 503 after the wait (none read, none classified), answers /healthz meanwhile, then serves again', async () => {
    const classifier = stubClassifier();
    const port = await listen({ classifier, maxVerifyInFlight: 2, maxVerifyWaitMs: 300 });
    const body = verifyBody(20_000);
    const held = [heldRequest(port, body), heldRequest(port, body)];
    // The held requests are in (their headers read) once a probe is turned away.
    const post = () =>
      fetch(`http://127.0.0.1:${port}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body,
      }).then((r) => r.status);
    for (let i = 0; i < 100 && (await post()) !== 503; i++);
    const burst = Array.from({ length: 50 }, post);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const statuses = await Promise.all(burst);
    expect(statuses).toEqual(Array.from({ length: 50 }, () => 503));
    expect(classifier.calls).toHaveLength(0);
    expect(await Promise.all(held.map((h) => h.finish()))).toEqual([200, 200]);
    expect(classifier.calls).toHaveLength(2);
  });
});

describe('slots of clients that hang up', () => {
  it('frees the slot of a client that closes its connection while its request awaits the rate limiter (Redis), so later requests are not shed', async () => {
    // A rate limiter as slow as a Redis round trip under load: the request is read and waits on it, then its client goes.
    let pending = 0;
    const slowLimiter: RateLimiter = {
      hit: async () => {
        pending++;
        await new Promise((r) => setTimeout(r, 150));
        pending--;
        return ALLOWED;
      },
      close: async () => undefined,
    };
    const port = await listen({
      tenants: tenants(tenantsFile({ rateLimit: { max: 1000, windowSeconds: 60 } })),
      rateLimiter: slowLimiter,
      maxVerifyInFlight: 2,
      maxVerifyWaitMs: 300,
    });
    const body = verifyBody(500);
    for (let i = 0; i < 4; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /v1/verify HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // Hung up once the whole request was read and is waiting on the limiter.
      for (let t = 0; t < 400 && pending === 0; t++) await new Promise((r) => setTimeout(r, 5));
      expect(pending, `hang-up ${i + 1} reached the limiter (not held for a slot)`).toBe(1);
      socket.destroy();
      while (pending > 0) await new Promise((r) => setTimeout(r, 5));
    }
    const statuses = await Promise.all(
      Array.from({ length: 2 }, () =>
        fetch(`http://127.0.0.1:${port}/v1/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: ORIGIN },
          body,
        }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual([200, 200]);
  });
});

describe('Admission', () => {
  it('lets a waiting request in when a slot frees, and sheds it when none frees in time', async () => {
    const a = new Admission({ maxInFlight: 1, maxWaitMs: 50, maxWaiting: 10, stallMs: 10_000, turnBudgetMs: 1000 });
    const events: string[] = [];
    let first: Ticket | undefined;
    a.enter(
      (t) => (first = t),
      () => events.push('first shed'),
    );
    a.enter(
      () => events.push('second in'),
      () => events.push('second shed'),
    );
    a.enter(
      () => events.push('third in'),
      () => events.push('third shed'),
    );
    expect(a.waiting).toBe(2);
    if (first === undefined) throw new Error('the first should be in at once');
    a.bodyDone(first);
    a.leave(first);
    expect(events).toEqual(['second in']);
    await new Promise((r) => setTimeout(r, 120));
    expect(events).toEqual(['second in', 'third shed']);
    a.close();
  });

  it('after a turn that accepted a connection, lets the next waiting request in a turn later (at most acceptFirstMs after the last work)', async () => {
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    const admittedAfter = async (acceptFirstMs: number): Promise<number> => {
      const a = new Admission({ maxInFlight: 16, maxWaitMs: 60_000, maxWaiting: 10, stallMs: 60_000, turnBudgetMs: 1, acceptFirstMs });
      // One turn of work so far: the budget is spent, the next request waits for a turn of its own.
      a.enter(
        (t) => a.bodyDone(t),
        () => undefined,
      );
      await turns(1);
      a.spend(5);
      let admitted = false;
      a.enter(
        () => (admitted = true),
        () => undefined,
      );
      // Connections are accepted in each of the next turns (a burst at the listener).
      let n = 0;
      for (; n < 20 && !admitted; n++) {
        a.connectionAccepted();
        await turns(1);
      }
      a.close();
      return n;
    };
    expect(await admittedAfter(0)).toBe(1);
    // With accept-first, no verify work while connections keep being accepted, until acceptFirstMs since the last work.
    expect(await admittedAfter(60_000)).toBe(20);
  });

  it('stops counting a request whose body stalled, so slow clients cannot hold every slot', () => {
    let now = 0;
    const a = new Admission({ maxInFlight: 2, maxWaitMs: 60_000, maxWaiting: 10, stallMs: 1000, turnBudgetMs: 1000, now: () => now });
    const tickets: Ticket[] = [];
    const take = () =>
      a.enter(
        (t) => void tickets.push(t),
        () => undefined,
      );
    take();
    take();
    take(); // waits
    expect(tickets).toHaveLength(2);
    now = 1_000;
    a.sweep();
    expect(tickets).toHaveLength(3);
    expect(a.inFlight).toBe(1);
    // A stalled body that finally arrives counts again until answered.
    a.bodyDone(tickets[0] as Ticket);
    expect(a.inFlight).toBe(2);
    for (const t of tickets) a.leave(t);
    a.leave(tickets[0] as Ticket);
    expect(a.inFlight).toBe(0);
    a.close();
  });
});
