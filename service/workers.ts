import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { MetricsSource } from './plugins/metrics.ts';
import { answerMetricsRequests, workersMetrics } from './worker-metrics.ts';

/** The environment variable that tells a forked process which worker slot (1..WORKERS) it fills. */
export const WORKER_SLOT_VARIABLE = 'FORMGUARD_WORKER';
/** A worker's exit code for a start-up failure (bad configuration, no model): restarting it would fail the same way. */
export const STARTUP_FAILED_EXIT_CODE = 78;

/** A worker that lived this long before dying starts its slot's backoff again from the first step. */
const STABLE_MS = 30_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;

const OPENAPI_MESSAGE = 'formguard:openapi';
const DRAIN_MESSAGE = 'formguard:drain';

/** Delay before restarting a slot whose worker died `failures` times in a row, each soon after starting. */
export function restartDelayMs(failures: number): number {
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, failures - 1));
}

export interface AdminServer {
  close(): Promise<void>;
}

export interface PrimaryOptions {
  readonly workers: number;
  readonly log: Logger;
  /** SHUTDOWN_GRACE_MS: each worker's own limit for its drain; the primary waits a little longer before killing. */
  readonly graceMs: number;
  /** Builds and listens the admin server on the workers' aggregated metrics, once a worker sent its OpenAPI document. */
  readonly startAdmin?: (metrics: MetricsSource, document: unknown) => Promise<AdminServer>;
  /** Called once, with the exit code, when the primary stops. */
  readonly exit: (code: number) => Promise<void>;
}

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  /** Its worker has sent its OpenAPI document, so it answers requests for its metrics. */
  reporting: boolean;
  /** Its worker listens: it has its drain handler, so it is asked to drain rather than signalled. */
  listening: boolean;
  startedAt: number;
  failures: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The primary of WORKERS > 1: forks one service process per slot, all listening on the one port (node:cluster hands
 * connections out in turn), restarts a worker that dies (after a delay that doubles while it keeps dying soon after
 * starting, so a crash loop does not spin), hands SIGTERM/SIGINT on as a graceful drain, and serves /metrics summed
 * over the workers. It reads no request itself.
 */
export function runPrimary(opts: PrimaryOptions): void {
  const { log } = opts;
  const slots: Slot[] = Array.from({ length: opts.workers }, (_, i) => ({
    index: i + 1,
    worker: undefined,
    reporting: false,
    listening: false,
    startedAt: 0,
    failures: 0,
    timer: undefined,
  }));
  // Summed over the workers that answer; a worker still starting is left out instead of failing the scrape.
  const metrics = workersMetrics(() => slots.filter((s) => s.reporting && s.worker !== undefined).map((s) => s.worker as Worker));
  let admin: AdminServer | undefined;
  let adminStarting = false;
  let stopping: Promise<void> | undefined;
  let exitCode = 0;

  const fork = (slot: Slot): void => {
    slot.timer = undefined;
    slot.startedAt = Date.now();
    const worker = cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot.index) });
    slot.worker = worker;
    slot.listening = false;
    slot.reporting = false;
    worker.on('listening', () => {
      if (slot.worker === worker) slot.listening = true;
    });
    worker.on('message', (message: unknown) => {
      if (!isMessage(message, OPENAPI_MESSAGE)) return;
      if (slot.worker === worker) slot.reporting = true;
      if (admin !== undefined || adminStarting || opts.startAdmin === undefined || stopping !== undefined) return;
      adminStarting = true;
      opts.startAdmin(metrics, (message as { document?: unknown }).document).then(
        (server) => {
          admin = server;
          if (stopping !== undefined) void server.close();
        },
        (err: unknown) => {
          log.fatal({ err }, 'admin server failed to start; stopping the workers');
          exitCode = 1;
          void stop();
        },
      );
    });
    worker.on('exit', (code, signal) => {
      if (slot.worker === worker) slot.worker = undefined;
      if (stopping !== undefined) return;
      if (code === STARTUP_FAILED_EXIT_CODE) {
        log.fatal({ worker: slot.index, workerPid: worker.process.pid }, 'a worker could not start (see its message above); stopping');
        exitCode = 1;
        void stop();
        return;
      }
      slot.failures = Date.now() - slot.startedAt >= STABLE_MS ? 1 : slot.failures + 1;
      const delay = restartDelayMs(slot.failures);
      log.error({ worker: slot.index, workerPid: worker.process.pid, code, signal, restartInMs: delay }, 'worker died; restarting it');
      slot.timer = setTimeout(() => fork(slot), delay);
    });
  };

  const stop = (signal?: NodeJS.Signals): Promise<void> => {
    if (stopping !== undefined) return stopping;
    log.info({ signal, workers: opts.workers }, 'shutting down: the workers finish their in-flight requests');
    stopping = (async () => {
      for (const slot of slots) clearTimeout(slot.timer);
      const alive = slots.filter(
        (s) => s.worker !== undefined && s.worker.process.exitCode === null && s.worker.process.signalCode === null,
      );
      const workers = alive.map((s) => s.worker as Worker);
      // A worker still starting has no request to finish: a signal ends it, and that is no failure.
      const exits = alive.map(
        (s) =>
          new Promise<number>((resolve) =>
            (s.worker as Worker).once('exit', (code: number | null) => resolve(code ?? (s.listening ? 1 : 0))),
          ),
      );
      for (const s of alive) {
        const w = s.worker as Worker;
        // A message, not a signal: after Ctrl-C a worker already has its SIGINT, and a second signal would end it at once.
        if (s.listening && w.isConnected()) w.send({ type: DRAIN_MESSAGE });
        else w.process.kill('SIGTERM');
      }
      const killer = setTimeout(() => {
        log.error('workers still running after the grace period; killing them');
        for (const w of workers) w.process.kill('SIGKILL');
      }, opts.graceMs + 2_000);
      const codes = await Promise.all(exits);
      clearTimeout(killer);
      if (codes.some((c) => c !== 0)) exitCode = 1;
      await admin?.close();
      log.info({ exitCode }, 'stopped');
      await opts.exit(exitCode);
    })();
    return stopping;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping === undefined) {
      void stop(signal);
      return;
    }
    log.error({ signal }, 'second signal: killing the workers');
    for (const slot of slots) slot.worker?.process.kill('SIGKILL');
    void opts.exit(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  log.info({ workers: opts.workers }, 'starting the workers');
  for (const slot of slots) fork(slot);
}

/** In a worker, once its app is built: its metrics for the primary's /metrics, its OpenAPI document for /docs. */
export function reportToPrimary(registry: Registry, document: unknown): void {
  answerMetricsRequests(registry);
  process.send?.({ type: OPENAPI_MESSAGE, document });
}

/** In a worker: calls `drain` when the primary asks for a graceful stop. */
export function onDrainRequest(drain: () => void): void {
  process.on('message', (message: unknown) => {
    if (isMessage(message, DRAIN_MESSAGE)) drain();
  });
}

function isMessage(message: unknown, type: string): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}
