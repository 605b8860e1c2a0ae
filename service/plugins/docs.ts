import swagger, { type StaticDocumentSpec } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ZodType } from 'zod';

/**
 * The OpenAPI description, built from the public app's route schemas (themselves generated from the zod schemas):
 * `app.swagger()`. It serves nothing; the admin server shows it (docsUi).
 */
export const openApi = fp(
  async (app) => {
    await app.register(swagger, {
      // The verify route's schemas are JSON schemas already (compiled for its hot path); the review routes' are zod.
      transform: (doc) => (usesZod(doc.schema) ? jsonSchemaTransform(doc) : { schema: doc.schema, url: doc.url }),
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'formguard verify API',
          version: '1',
          description: 'Classifies a form submission as spam or legitimate. See docs/api.md for the status codes and decisions.',
        },
      },
    });
  },
  { name: 'formguard-openapi', fastify: '5.x' },
);

/** A route whose request parts, or answers, are zod schemas (a route may describe only its answer, as GET /review/api/me). */
function usesZod(schema: object | undefined): boolean {
  if (schema === undefined) return false;
  const { response, ...parts } = schema as { response?: Record<string, unknown> };
  return [...Object.values(parts), ...Object.values(response ?? {})].some((part) => part instanceof ZodType);
}

/**
 * /docs (Swagger UI) and /docs/json on the admin server, showing a document built elsewhere (the public app's).
 * Read-only: "Try it out" would send requests to the admin server, which has no /v1/verify.
 */
export const docsUi = fp<StaticDocumentSpec>(
  async (app, opts) => {
    await app.register(swagger, { mode: 'static', specification: { document: opts.document } });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { supportedSubmitMethods: [] } });
  },
  { name: 'formguard-docs-ui', fastify: '5.x' },
);
