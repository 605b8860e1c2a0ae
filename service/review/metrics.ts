import { Counter, register as defaultRegistry, type Registry } from 'prom-client';

export const DROP_REASONS = ['spool_full', 'write_failed', 'backlog_full', 'shutdown', 'error'] as const;
/** Why a flagged submission was not stored and kept for look-up instead: its account's queue was full (items.ts). */
export const SHED_REASONS = ['queue_full'] as const;

export interface ReviewMetrics {
  /** Jobs stored in the review store from the sink, or added to the BullMQ queue from the spool. */
  readonly queued: Counter;
  /** Jobs written to the local spool because Redis did not answer. */
  readonly spooled: Counter;
  /**
   * Jobs lost, by reason: the spool's bound reached, a spool write failed (disk full, I/O), too many jobs waiting in
   * memory, still in memory when a shutdown ran out of time, anything else.
   */
  readonly dropped: Counter<'reason'>;
  /** Unqueued verdicts not kept for look-ups (Redis down, circuit open, or the write refused). */
  readonly lookupSkipped: Counter;
  /** Pending items removed to keep an account under REVIEW_MAX_PENDING (the surest spam verdicts first). */
  readonly evicted: Counter;
  /**
   * Flagged submissions not stored, by reason: queue_full (the account at its caps, a spam verdict the model was at least
   * as sure of as of every pending one: it would have been the first evicted). Each is kept for look-up instead.
   */
  readonly shed: Counter<'reason'>;
}

/** The registry's counter of this name, made on first use: a review side started again on one registry counts on in it. */
export function counter<L extends string = string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

/** A counter by reason, every reason present from the start at 0: an alert on increase() sees the first one, not a new series. */
function reasonCounter(registry: Registry, name: string, help: string, reasons: readonly string[]): Counter<'reason'> {
  const c = counter(registry, name, help, ['reason'] as const);
  for (const reason of reasons) c.inc({ reason }, 0);
  return c;
}

/** The review counters on the service's registry (prom-client's default one unless given); safe to call twice. */
export function reviewMetrics(registry: Registry = defaultRegistry): ReviewMetrics {
  const dropped = reasonCounter(
    registry,
    'formguard_review_dropped_total',
    'Review jobs lost (neither queued nor spooled), by reason: spool_full, write_failed, backlog_full, shutdown, error',
    DROP_REASONS,
  );
  const shed = reasonCounter(
    registry,
    'formguard_review_shed_total',
    'Flagged submissions not stored but kept for look-up, by reason: queue_full (the account at its caps and the model surer of it than of every pending spam verdict)',
    SHED_REASONS,
  );
  return {
    queued: counter(
      registry,
      'formguard_review_queued_total',
      'Review jobs stored in the review store (or, replayed from the spool, added to its queue)',
    ),
    spooled: counter(registry, 'formguard_review_spooled_total', 'Review jobs written to the local spool while Redis was unreachable'),
    dropped,
    lookupSkipped: counter(
      registry,
      'formguard_review_lookup_skipped_total',
      'Verdicts of unqueued submissions not kept for support look-ups because Redis was down, its circuit open, or the write failed',
    ),
    evicted: counter(
      registry,
      'formguard_review_evicted_total',
      'Pending review items removed to keep an account under REVIEW_MAX_PENDING (the surest spam verdicts first)',
    ),
    shed,
  };
}
