import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';

/** OpenAPI built from the routes' schemas (themselves generated from the zod schemas), at /docs and /docs/json. */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'formguard verify API',
          version: '1',
          description: 'Classifies a form submission as spam or legitimate. See the README (section "The verify API") for the status codes and decisions.',
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
  },
  { name: 'formguard-docs', fastify: '5.x' },
);
