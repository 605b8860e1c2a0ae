import { Counter, register as defaultRegistry, type Registry } from 'prom-client';

export interface ReviewMetrics {
  /** Jobs added to the BullMQ queue (directly or from the spool). */
  readonly queued: Counter;
  /** Jobs written to the local spool because Redis did not answer. */
  readonly spooled: Counter;
  /** Jobs lost because the spool was full. */
  readonly dropped: Counter;
}

function counter(registry: Registry, name: string, help: string): Counter {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, registers: [registry] });
}

/** The review counters on the service's registry (prom-client's default one unless given); safe to call twice. */
export function reviewMetrics(registry: Registry = defaultRegistry): ReviewMetrics {
  return {
    queued: counter(registry, 'formguard_review_queued_total', 'Review jobs added to the queue'),
    spooled: counter(registry, 'formguard_review_spooled_total', 'Review jobs written to the local spool while Redis was unreachable'),
    dropped: counter(registry, 'formguard_review_dropped_total', 'Review jobs dropped because the local spool was full'),
  };
}
