import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';

export interface Seen {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface FaultServer {
  readonly url: string;
  /** Requests (or, for the silent server, connections) received so far. */
  readonly seen: Seen[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 whose n-th request (from 0) gets the answer `answer(n)` writes. */
export async function faultServer(answer: (n: number, res: ServerResponse) => void): Promise<FaultServer> {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      answer(seen.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that accepts connections and never writes a byte. */
export async function silentServer(): Promise<FaultServer> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    seen.push({ headers: {}, body: '' });
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on: taken, then let go. */
export async function closedPort(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

let counter = 0;
/** A verdict body of the contract's shape; the test sees where the client took each field from. */
export function verdictBody(status: 'spam' | 'legitimate' = 'legitimate'): Record<string, unknown> {
  counter++;
  return {
    status,
    confidence: 0.93,
    reasoning: `test verdict ${counter}`,
    submissionId: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    processingTime: 1.5,
    formId: 'contact',
    modelVersion: 'test-model',
  };
}

export function internalErrorBody(submissionId: string): Record<string, unknown> {
  return { error: 'Internal server error', status: 'error', confidence: 0, submissionId, processingTime: 0.4 };
}
