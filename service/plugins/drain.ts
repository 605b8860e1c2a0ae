import fp from 'fastify-plugin';

/**
 * Graceful shutdown without lost or malformed answers: requests already in flight, or arriving on an open
 * connection while the server drains, are answered as usual (Fastify's own drain answer is a bare 503 in
 * none of the spec's shapes), and each of those answers closes its connection so keep-alive clients let go.
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
