import fp from 'fastify-plugin';

/**
 * Graceful shutdown: every answer sent while the server drains (to requests in flight when it began, or, with
 * `return503OnClosing: false` in app.ts, arriving on a connection still open) closes its connection, so
 * keep-alive clients let go and close() does not wait out the keep-alive timeout.
 */
export default fp(
  async (app) => {
    let draining = false;
    app.addHook('preClose', (done) => {
      draining = true;
      done();
    });
    // Callback style, not async: no promise and no extra microtask per answer.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (draining && request.raw.httpVersionMajor < 2) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'formguard-drain', fastify: '5.x' },
);
