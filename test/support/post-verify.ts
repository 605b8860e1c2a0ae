import { request, type Agent } from 'node:http';

/** An answer (its status, whether it said Connection: close, its body), or the error code of a request that got none. */
export type VerifyOutcome = { status: number; close: boolean; body: string } | { error: string };

/**
 * POSTs `body` to /v1/verify of the service on 127.0.0.1:`port` over `agent` (a keep-alive client's), from the demo
 * origin. Never rejects: a request that gets no answer resolves with its error code (ECONNREFUSED, ECONNRESET, …), so a
 * load loop can count them.
 */
export function postVerify(port: number, agent: Agent, body: string): Promise<VerifyOutcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/verify',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', origin: 'http://localhost:8080' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, close: res.headers.connection === 'close', body: text }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}
