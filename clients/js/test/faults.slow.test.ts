import { afterEach, describe, expect, it } from 'vitest';
import { FormguardClient, FormguardUnavailableError, type Failure, type VerifyResult } from '../src/index.js';
import { closedPort, faultServer, internalErrorBody, json, silentServer, verdictBody, type FaultServer } from './fault-server.js';

const payload = { name: 'Ada', email: 'ada@example.com', message: 'Could you send me a quote for 20 oak chairs?' };
let servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function track(s: Promise<FaultServer>): Promise<FaultServer> {
  const server = await s;
  servers.push(server);
  return server;
}

/** Runs one verify call and measures it from outside the client. */
async function timed(client: FormguardClient): Promise<{ result: VerifyResult; ms: number }> {
  const t0 = performance.now();
  const result = await client.verify({ formId: 'contact', payload });
  return { result, ms: performance.now() - t0 };
}

function failedOpen(result: VerifyResult): Extract<VerifyResult, { outcome: 'failed-open' }> {
  if (result.outcome !== 'failed-open') throw new Error(`expected failed-open, got ${result.outcome}`);
  return result;
}

describe('the client when the service cannot answer', () => {
  it('fails open on a refused connection without waiting for the timeout', async () => {
    const failures: Failure[] = [];
    const client = new FormguardClient({ baseUrl: await closedPort(), apiKey: 'k', onFailure: (f) => failures.push(f) });
    const { result, ms } = await timed(client);
    const f = failedOpen(result);
    expect(f.allow).toBe(true);
    expect(f.reason).toBe('unreachable');
    expect(f.status).toBeUndefined();
    // Refused connections are retried (a restarting service refuses for a moment) with short backoffs only.
    expect(f.attempts).toBe(3);
    expect(ms).toBeLessThan(5000);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(/no verdict from http:\/\/127\.0\.0\.1:\d+\/v1\/verify \(unreachable\)/);
  });

  it('fails open at the timeout when the server accepts and never answers, each attempt on a new connection', async () => {
    const server = await track(silentServer());
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 300, retries: 2, deadlineMs: 5000 });
    const { result, ms } = await timed(client);
    const f = failedOpen(result);
    expect(f.reason).toBe('timeout');
    expect(f.attempts).toBe(3);
    expect(server.seen.length).toBe(3);
    // Three timeouts of 300 ms were waited out; far less than the deadline.
    expect(ms).toBeGreaterThanOrEqual(850);
    expect(ms).toBeLessThan(5000);
  });

  it('gives up at the deadline, not at retries × timeout, when nothing answers', async () => {
    const server = await track(silentServer());
    // Without the deadline this would take 6 × 1000 ms and more.
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 1000, retries: 5, deadlineMs: 1300 });
    const { result, ms } = await timed(client);
    expect(failedOpen(result).reason).toBe('timeout');
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(1300 + 700);
    expect(failedOpen(result).elapsedMs).toBeLessThan(1300 + 700);
  });

  it('times out a server that sends its headers and then stalls the body', async () => {
    const server = await track(
      faultServer((_n, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":');
      }),
    );
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 300, retries: 0 });
    const { result, ms } = await timed(client);
    expect(failedOpen(result).reason).toBe('timeout');
    expect(ms).toBeLessThan(3000);
  });

  it('waits as Retry-After says on 503, retries, and returns the verdict', async () => {
    const verdict = verdictBody('spam');
    const server = await track(
      faultServer((n, res) =>
        n === 0
          ? json(res, 503, internalErrorBody('11111111-1111-4111-8111-111111111111'), { 'retry-after': '1' })
          : json(res, 200, verdict),
      ),
    );
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    const { result, ms } = await timed(client);
    expect(result).toEqual({ ...verdict, outcome: 'spam', allow: false });
    expect(server.seen.length).toBe(2);
    // It waited the second the service asked for (timers may fire a little early or late).
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(6000);
  });

  it('fails open at once on a 503 whose Retry-After would pass the deadline, with its submissionId', async () => {
    const id = '22222222-2222-4222-8222-222222222222';
    const server = await track(faultServer((_n, res) => json(res, 503, internalErrorBody(id), { 'retry-after': '30' })));
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    const { result, ms } = await timed(client);
    const f = failedOpen(result);
    expect(f).toMatchObject({ reason: 'server-error', status: 503, submissionId: id, attempts: 1 });
    expect(server.seen.length).toBe(1);
    expect(ms).toBeLessThan(5000);
  });

  it('retries a 500 twice, then fails open with the last answer’s submissionId and body', async () => {
    const ids = ['aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000003'];
    const server = await track(faultServer((n, res) => json(res, 500, internalErrorBody(ids[n] ?? 'extra'))));
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    const f = failedOpen((await timed(client)).result);
    expect(server.seen.length).toBe(3);
    expect(f).toMatchObject({
      reason: 'server-error',
      status: 500,
      attempts: 3,
      submissionId: ids[2],
      body: internalErrorBody(ids[2] ?? ''),
    });
  });

  it('fails open on a 200 whose body is not JSON, without retrying', async () => {
    const server = await track(
      faultServer((_n, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Please sign in to the hotel Wi-Fi</body></html>');
      }),
    );
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    const f = failedOpen((await timed(client)).result);
    expect(f).toMatchObject({ reason: 'bad-response', status: 200, attempts: 1 });
    expect(f.body).toContain('hotel Wi-Fi');
    expect(server.seen.length).toBe(1);
  });

  it('fails open on a 200 JSON body that is not a verdict', async () => {
    const server = await track(faultServer((_n, res) => json(res, 200, { status: 'maybe' })));
    const f = failedOpen((await timed(new FormguardClient({ baseUrl: server.url, apiKey: 'k' }))).result);
    expect(f).toMatchObject({ reason: 'bad-response', status: 200, body: { status: 'maybe' } });
  });

  it('retries a proxy’s 502 page that is not JSON, as a 5xx', async () => {
    const server = await track(
      faultServer((n, res) => {
        if (n > 0) return json(res, 200, verdictBody());
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<h1>502 Bad Gateway</h1>');
      }),
    );
    const { result } = await timed(new FormguardClient({ baseUrl: server.url, apiKey: 'k' }));
    expect(result.outcome).toBe('legitimate');
    expect(server.seen.length).toBe(2);
  });

  it('never retries a 4xx other than 429: an invalid key fails open after one request', async () => {
    const server = await track(faultServer((_n, res) => json(res, 401, { error: 'Invalid API key' })));
    const f = failedOpen((await timed(new FormguardClient({ baseUrl: server.url, apiKey: 'k' }))).result);
    expect(f).toMatchObject({ reason: 'rejected', status: 401, body: { error: 'Invalid API key' }, attempts: 1 });
    expect(f.message).toContain('Invalid API key');
    expect(server.seen.length).toBe(1);
  });

  it('waits out a 429 whose Retry-After fits the deadline, and fails open on one that does not', async () => {
    const limited = {
      error: 'Rate limit exceeded',
      retryAfter: 1,
      message: 'Too many requests; please wait 1 seconds before retrying',
      processingTime: 0.2,
    };
    const short = await track(
      faultServer((n, res) => (n === 0 ? json(res, 429, limited, { 'retry-after': '1' }) : json(res, 200, verdictBody()))),
    );
    expect((await timed(new FormguardClient({ baseUrl: short.url, apiKey: 'k' }))).result.outcome).toBe('legitimate');
    expect(short.seen.length).toBe(2);

    const long = await track(faultServer((_n, res) => json(res, 429, { ...limited, retryAfter: 40 }, { 'retry-after': '40' })));
    const { result, ms } = await timed(new FormguardClient({ baseUrl: long.url, apiKey: 'k' }));
    expect(failedOpen(result)).toMatchObject({ reason: 'rate-limited', status: 429, attempts: 1, body: { retryAfter: 40 } });
    expect(ms).toBeLessThan(5000);
  });

  it('with failOpen false, throws a FormguardUnavailableError carrying the failure', async () => {
    const id = 'bbbbbbbb-0000-4000-8000-000000000001';
    const server = await track(faultServer((_n, res) => json(res, 500, internalErrorBody(id))));
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k', retries: 0, failOpen: false });
    const error = await client.verify({ formId: 'contact', payload }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormguardUnavailableError);
    expect(error).toMatchObject({ name: 'FormguardUnavailableError', reason: 'server-error', status: 500, submissionId: id, attempts: 1 });
  });

  it('keeps failing open when the onFailure hook throws', async () => {
    const client = new FormguardClient({
      baseUrl: await closedPort(),
      apiKey: 'k',
      retries: 0,
      onFailure: () => {
        throw new Error('log shipper down');
      },
    });
    expect((await timed(client)).result).toMatchObject({ outcome: 'failed-open', allow: true, reason: 'unreachable' });
  });

  it('stops at once with the caller’s reason when the caller aborts', async () => {
    const server = await track(silentServer());
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('visitor left the page')), 100);
    const t0 = performance.now();
    await expect(client.verify({ formId: 'contact', payload, signal: controller.signal })).rejects.toThrow('visitor left the page');
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});
