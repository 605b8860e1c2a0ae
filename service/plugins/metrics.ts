import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OutcomeLabel } from '../verify/outcome.ts';

export interface VerifyMetrics {
  readonly registry: Registry;
  readonly requests: Counter<'outcome'>;
  readonly latency: Histogram<'outcome'>;
  readonly verdicts: Counter<'status'>;
  readonly model: Gauge<'version' | 'feature_version' | 'role'>;
  readonly modelLoadFailures: Counter<'version'>;
  observe(outcome: OutcomeLabel, seconds: number): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: VerifyMetrics;
  }
}

export interface MetricsOptions {
  /** Shared with other parts of the process (the review queue registers its counters here). */
  readonly registry?: Registry;
  /** Process metrics (CPU, heap, event loop); off in tests, where many apps share a process. */
  readonly collectDefault?: boolean;
}

/** The service's metrics, as `app.metrics`; the admin server (service/admin.ts) serves them. */
export default fp<MetricsOptions>(
  async (app, opts) => {
    const registry = opts.registry ?? new Registry();
    if (opts.collectDefault === true) collectDefaultMetrics({ register: registry, prefix: 'formguard_' });
    const requests = new Counter({
      name: 'formguard_verify_requests_total',
      help: 'Verify requests by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'formguard_verify_duration_seconds',
      help: 'Verify answer time inside the service, by outcome',
      labelNames: ['outcome'],
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    const verdicts = new Counter({
      name: 'formguard_verdicts_total',
      help: 'Verdicts by status',
      labelNames: ['status'],
      registers: [registry],
    });
    // With WORKERS > 1 the admin server sums the workers' metrics; a 1 that says which model is loaded must stay 1.
    const model = new Gauge({
      name: 'formguard_model_info',
      help: 'Models in use (value 1; labels say which): role active answers, role shadow is scored beside it after the answer',
      labelNames: ['version', 'feature_version', 'role'],
      registers: [registry],
      aggregator: 'max',
    });
    const modelLoadFailures = new Counter({
      name: 'formguard_model_load_failures_total',
      help: 'Models the serving record named that could not be loaded (the current one kept serving), by version',
      labelNames: ['version'],
      registers: [registry],
    });

    app.decorate('metrics', {
      registry,
      requests,
      latency,
      verdicts,
      model,
      modelLoadFailures,
      observe(outcome: OutcomeLabel, seconds: number) {
        requests.inc({ outcome });
        latency.observe({ outcome }, seconds);
      },
    });
  },
  { name: 'formguard-metrics', fastify: '5.x' },
);

/** What /metrics serves: a process's registry, or the workers' metrics summed by the primary (service/workers.ts). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** GET /metrics (Prometheus text) of a registry: on the admin server only (service/admin.ts), never the public one. */
export const metricsRoute = fp<{ readonly registry: MetricsSource }>(
  async (app, opts) => {
    app.get('/metrics', async (_request, reply) => {
      reply.type(opts.registry.contentType);
      return opts.registry.metrics();
    });
  },
  { name: 'formguard-metrics-route', fastify: '5.x' },
);
