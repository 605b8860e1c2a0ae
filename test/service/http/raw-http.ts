import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RawAnswer {
  /** Whether the server closed the connection within the bound. */
  readonly closed: boolean;
  readonly statusCode: number | undefined;
  readonly headers: string;
  readonly body: string;
}

/**
 * Writes raw bytes to a listening app (for what app.inject cannot send: malformed HTTP, a body that stops) and
 * collects what comes back until the server closes the connection, or `boundMs` passes.
 */
export async function rawRequest(app: FastifyInstance, bytes: string, boundMs = 10_000): Promise<RawAnswer> {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app is not listening on TCP');
  const socket = connect(address.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), boundMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
  return {
    closed,
    statusCode: status === null ? undefined : Number(status[1]),
    headers: head,
    body: split === -1 ? '' : text.slice(split + 4),
  };
}
