import { Server as NetServer, type Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';

export interface DrainOptions {
  /**
   * How long a keep-alive connection with no request on it is left open once shutdown begins, for a request its
   * client may already be sending; then it is ended. Default 1000 ms.
   */
  readonly idleLingerMs?: number;
}

/** Per connection: requests not yet answered, and when it last finished one. */
interface Conn {
  active: number;
  idleSince: number;
}

/**
 * Graceful shutdown without resets. Node's server.close() (which Fastify's close() calls) destroys every idle
 * keep-alive connection at once, and a client that had just written its next request on one got ECONNRESET: a POST
 * it will not retry. So in preClose, before that: the listener is closed (new connections are refused from here,
 * never accepted and dropped), every answer from now on carries `Connection: close` (so keep-alive clients let go
 * after it), and each idle connection is left `idleLingerMs` for a request already on its way before it is ended.
 * Fastify's close() then finds no connection left to destroy.
 */
export default fp<DrainOptions>(
  async (app, opts) => {
    const linger = opts.idleLingerMs ?? 1000;
    const conns = new Map<Socket, Conn>();
    let draining = false;
    let settle: (() => void) | undefined;

    const endIdle = () => {
      const now = Date.now();
      for (const [socket, c] of conns) if (c.active === 0 && now - c.idleSince >= linger) socket.end();
      if (conns.size === 0) settle?.();
    };

    app.server.on('connection', (socket: Socket) => {
      conns.set(socket, { active: 0, idleSince: Date.now() });
      socket.once('close', () => {
        conns.delete(socket);
        if (draining && conns.size === 0) settle?.();
      });
    });
    // One listener for every response (a response closes once, so on rather than once, which wraps each listener
    // in a closure of its own): it finds its connection through its request's socket, which stays set.
    function onResponseClose(this: ServerResponse) {
      const c = conns.get(this.req.socket);
      if (c === undefined) return;
      c.active--;
      c.idleSince = Date.now();
    }
    app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const c = conns.get(req.socket);
      if (c === undefined) return;
      c.active++;
      res.on('close', onResponseClose);
    });

    app.addHook('preClose', (done) => {
      draining = true;
      if (!app.server.listening) return done();
      // net.Server's close: stops accepting without http.Server's closeIdleConnections.
      NetServer.prototype.close.call(app.server);
      if (conns.size === 0) return done();
      const timer = setInterval(endIdle, Math.max(10, Math.min(100, linger / 4)));
      settle = () => {
        clearInterval(timer);
        settle = undefined;
        done();
      };
      endIdle();
    });
    // Callback style, not async: no promise and no extra microtask per answer.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (draining && request.raw.httpVersionMajor < 2) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'formguard-drain', fastify: '5.x' },
);
