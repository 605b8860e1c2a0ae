import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { StaticDocumentSpec } from '@fastify/swagger';
import type { Logger } from 'pino';
import { plainErrorBody } from './http/bodies.ts';
import { docsUi } from './plugins/docs.ts';
import { metricsRoute, type MetricsSource } from './plugins/metrics.ts';

export interface AdminDeps {
  readonly logger?: Logger | boolean;
}

/**
 * The operators' server: /metrics and the OpenAPI description (/docs, /docs/json) of a public app built by
 * buildApp, kept off the public port (ADMIN_PORT, on ADMIN_HOST) so that the internet reads neither. Never listens
 * (server.ts does); readies `app` to read its OpenAPI document.
 */
export async function buildAdminApp(app: FastifyInstance, deps: AdminDeps = {}): Promise<FastifyInstance> {
  await app.ready();
  return buildAdminServer(app.metrics.registry, app.swagger(), deps);
}

/** The admin server of given metrics and OpenAPI document: with WORKERS > 1 the primary's, on the workers' summed metrics. */
export async function buildAdminServer(metrics: MetricsSource, document: unknown, deps: AdminDeps = {}): Promise<FastifyInstance> {
  const admin = Fastify({
    ...(typeof deps.logger === 'object' ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: deps.logger ?? false }),
    // A scrape every few seconds is not worth a log line.
    logController: new LogController({ disableRequestLogging: true }),
  });
  admin.setNotFoundHandler((request, reply) =>
    reply.code(404).send(plainErrorBody(`Route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)} not found`)),
  );
  await admin.register(metricsRoute, { registry: metrics });
  // Fastify's OpenAPI 3 document (openApi in plugins/docs.ts sets openapi: '3.0.3').
  await admin.register(docsUi, { document: document as StaticDocumentSpec['document'] });
  return admin;
}
