import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsSource } from './plugins/metrics.ts';

const REQUEST = 'formguard:metrics';
const RESULT = 'formguard:metrics-result';
/** A worker that does not answer within this is left out of the scrape rather than failing it. */
const ANSWER_TIMEOUT_MS = 2_000;

type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * The primary's /metrics: asks the workers that have a registry for their metrics and sums them with prom-client's
 * aggregator (AggregatorRegistry.aggregate: counters and histograms add up, gauges as each declares). Not
 * prom-client's clusterMetrics(): that asks every connected worker, so a worker still starting, or stuck, fails the
 * whole scrape after 5 s; here it is left out.
 */
export function workersMetrics(workers: () => readonly Worker[]): MetricsSource {
  let next = 0;
  return {
    contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      const id = next++;
      const answers = await Promise.all(workers().map((w) => ask(w, id)));
      return AggregatorRegistry.aggregate(answers.filter((a): a is MetricsJson => a !== undefined)).metrics();
    },
  };
}

function ask(worker: Worker, id: number): Promise<MetricsJson | undefined> {
  return new Promise((resolve) => {
    const done = (result: MetricsJson | undefined): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(result);
    };
    const onMessage = (message: { type?: unknown; id?: unknown; metrics?: MetricsJson }): void => {
      if (message?.type === RESULT && message.id === id) done(message.metrics);
    };
    const onExit = (): void => done(undefined);
    const timer = setTimeout(() => done(undefined), ANSWER_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    if (worker.isConnected()) worker.send({ type: REQUEST, id });
    else done(undefined);
  });
}

/** In a worker: answers the primary's requests with this registry's metrics. */
export function answerMetricsRequests(registry: Registry): void {
  process.on('message', (message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== REQUEST) return;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: RESULT, id: message.id, metrics }),
      () => process.send?.({ type: RESULT, id: message.id, metrics: [] }),
    );
  });
}
