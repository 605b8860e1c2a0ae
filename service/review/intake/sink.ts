import type { Queue } from 'bullmq';
import type { RedisClient } from '../../config/redis-target.ts';
import type { Logger } from 'pino';
import { withCappedFields } from './fields.ts';
import type { ReviewJob, ReviewSink } from './job-schema.ts';
import type { DROP_REASONS, ReviewMetrics } from '../metrics.ts';
import { reviewDecision, type ReviewPolicy } from './policy.ts';
import type { Queued } from '../../../core/classifier/shadow-store.ts';
import { jobOptions } from './queue.ts';
import type { AppendResult, ReviewSpool } from './spool.ts';
import type { CircuitBreaker } from '../../resilience/breaker.ts';
import { TurnBatch } from '../store/turn-batch.ts';

export interface QueueSinkOptions {
  readonly queue: Queue<ReviewJob>;
  /** The queue's connection: its state decides between queue and spool without waiting. */
  readonly connection: RedisClient;
  readonly spool: ReviewSpool;
  readonly policy: ReviewPolicy;
  /** An account's own band and sample rate (the tenants file's), each one left out taking `policy`'s. */
  readonly accountPolicy?: (accountId: string) => Partial<ReviewPolicy> | undefined;
  readonly maxFieldBytes: number;
  readonly retentionMs: number;
  readonly metrics: ReviewMetrics;
  readonly log: Logger;
  /**
   * Stores a batch of flagged jobs in the review store (the store's ingestMany): jobs go there directly, in batches
   * (one script call per account and batch), and the queue only carries the spool's replays. When it answers with one
   * result per job, a job answered 'shed' (not stored at its account's full queue) is kept for look-up instead.
   */
  readonly ingest: (jobs: readonly ReviewJob[]) => Promise<unknown>;
  /** Longest wait for one ingest (a batch of jobs) or one replay's add before its jobs go to the spool (again). */
  readonly addTimeoutMs?: number;
  /** How often the spool is retried (it is also drained whenever the connection becomes ready). */
  readonly drainIntervalMs?: number;
  readonly random?: () => number;
  readonly now?: () => number;
  /** Keeps the verdict of a submission that is not queued, best effort (for support look-ups). */
  readonly remember?: (job: ReviewJob) => Promise<void>;
  /** Shared with the rate limiter: while Redis is known hung, jobs go to the spool without a wait. */
  readonly breaker?: CircuitBreaker;
  /** At most one "jobs dropped" log line per this many ms (the metric counts every one). */
  readonly dropLogIntervalMs?: number;
  /** Most jobs held in memory on their way to the queue or the spool; past it a job is dropped and counted. */
  readonly maxWaiting?: number;
}

/**
 * Jobs held in memory at once: each holds its fields, cut to REVIEW_MAX_FIELD_BYTES each and to BODY_LIMIT in all,
 * so at most MAX_WAITING × BODY_LIMIT (5,000 × 64 KiB = 320 MiB at the defaults; ~10 MiB for 2 KiB forms). With
 * the spool written in batches this is only reached when the disk cannot keep up at all.
 */
export const MAX_WAITING = 5_000;
/** Jobs per spool write (one write and one fsync each). */
const SPOOL_BATCH = 1_000;
/**
 * Most jobs one direct ingest carries (the store splits it further per account, INGEST_BATCH per script call). One
 * ingest is under way at a time; jobs flagged meanwhile wait in memory (counted in MAX_WAITING) and go in the next one,
 * so the busier the service, the fuller each call, and Redis never has a backlog of this sink's calls ahead of the
 * rate limiter's.
 */
export const INGEST_BATCH_JOBS = 64;

/** Why a flagged job was lost: the spool's byte bound, a failed spool write (disk full, I/O error), anything else. */
export type DropReason = (typeof DROP_REASONS)[number];

export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/**
 * The service's ReviewSink: decides what goes to review, then queues it off the response path. When Redis
 * does not answer (not connected, or slower than the timeout) the job goes to the local spool, which is sent
 * when the connection is back, on an interval, and at start-up.
 */
export class QueueReviewSink implements ReviewSink {
  readonly #o: QueueSinkOptions;
  /** Every job offered and not yet queued, spooled or counted as dropped. */
  readonly #inFlight = new Map<Promise<void>, ReviewJob>();
  /** Jobs waiting for the next spool write, written together: one fsync per batch, not per job. */
  #toSpool: Array<{ job: ReviewJob; done: (r: AppendResult) => void }> = [];
  #spoolWriting = false;
  #abandoned = false;
  readonly #timer: NodeJS.Timeout;
  readonly #onReady = () => void this.drain();
  #closed = false;
  readonly #dropLog = { at: -Infinity, count: 0 };
  #drain: Promise<void> | undefined;
  /**
   * Jobs flagged within one turn (or while the previous batch was under way), stored together; each resolves or rejects
   * with its batch.
   */
  readonly #adds: TurnBatch<ReviewJob>;
  /** Jobs of the batch just stored that the store shed (counted there): kept for look-up, not counted as queued. */
  readonly #shed = new WeakSet<ReviewJob>();

  constructor(options: QueueSinkOptions) {
    this.#o = options;
    const ingest = options.ingest;
    this.#adds = new TurnBatch<ReviewJob>(
      async (jobs) => {
        let results: unknown;
        await this.#call(async () => (results = await ingest(jobs)));
        // Only once the call counted as done: a batch that timed out is spooled whole, its late answer ignored.
        if (Array.isArray(results)) results.forEach((r, i) => r === 'shed' && this.#shedJob(jobs[i] as ReviewJob));
      },
      { maxBatch: INGEST_BATCH_JOBS, maxFlushing: 1 },
    );
    options.connection.on('ready', this.#onReady);
    this.#timer = setInterval(() => void this.drain(), options.drainIntervalMs ?? 5_000);
    this.#timer.unref();
    if (options.connection.status === 'ready') void this.drain();
  }

  offer(job: ReviewJob): Queued | undefined {
    try {
      if (this.#closed) return undefined;
      const own = this.#o.accountPolicy?.(job.accountId);
      const policy =
        own === undefined
          ? this.#o.policy
          : { band: own.band ?? this.#o.policy.band, sampleRate: own.sampleRate ?? this.#o.policy.sampleRate };
      const queued = reviewDecision(job, policy, this.#o.random);
      if (queued === undefined) {
        this.#remember(job);
        return undefined;
      }
      if (this.#inFlight.size >= (this.#o.maxWaiting ?? MAX_WAITING)) {
        this.#dropped(job, 'backlog_full');
        return queued;
      }
      const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.#send({ ...job, queued }))
        .catch((err: unknown) => this.#dropped(job, 'error', (err as NodeJS.ErrnoException).code ?? (err as Error).name))
        .finally(() => this.#inFlight.delete(p));
      this.#inFlight.set(p, job);
      return queued;
    } catch (err) {
      this.#o.log.error({ err, submissionId: job.submissionId }, 'review: offer failed');
      return undefined;
    }
  }

  /** Resolves when every job offered so far is queued, spooled or counted as dropped. */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight.keys()]);
  }

  /** Jobs offered and not yet queued, spooled or counted as dropped. */
  get waiting(): number {
    return this.#inFlight.size;
  }

  /** Sends the spool if Redis is up; concurrent calls share one drain. */
  drain(): Promise<void> {
    if (this.#drain !== undefined) return this.#drain;
    if (this.#o.connection.status !== 'ready' || this.#o.breaker?.isOpen === true) return Promise.resolve();
    const cutoff = (this.#o.now ?? Date.now)() - this.#o.retentionMs;
    this.#drain = this.#o.spool
      .drain(
        async (job) => {
          // Through the queue, one job each: its worker retries a job that fails, apart from the others.
          await this.#call(() => this.#o.queue.addBulk(this.#queueJobs([job])));
          this.#o.metrics.queued.inc();
        },
        (job) => Date.parse(job.receivedAt) > cutoff,
      )
      .then((r) => {
        if (r.sent + r.skipped > 0) this.#o.log.info(r, 'review: spool drained');
      })
      .catch((err: unknown) => this.#o.log.warn({ err }, 'review: spool drain failed'))
      .finally(() => {
        this.#drain = undefined;
      });
    return this.#drain;
  }

  /**
   * Stops taking jobs and waits until every job offered is queued, spooled or counted. With `deadline` (a Date.now()
   * time), what is still in memory then is counted as dropped (reason shutdown) and logged, instead of being lost
   * uncounted when the process exits.
   */
  async close(deadline?: number): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#o.connection.off('ready', this.#onReady);
    const settled = this.flush().then(() => this.#drain);
    if (deadline === undefined) return settled;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
    const outcome = await Promise.race([settled.then(() => 'done' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') this.abandon();
  }

  /**
   * The process is about to exit: every job still in memory is counted as dropped (reason shutdown) and said in
   * one error line (how many, the first and last submissionId; no content). Called once the shutdown's time is up.
   */
  abandon(): number {
    if (this.#abandoned) return 0;
    this.#abandoned = true;
    const jobs = [...this.#inFlight.values()];
    if (jobs.length === 0) return 0;
    this.#o.metrics.dropped.inc({ reason: 'shutdown' }, jobs.length);
    this.#o.log.error(
      {
        reason: 'shutdown',
        dropped: jobs.length,
        firstSubmissionId: jobs[0]?.submissionId,
        lastSubmissionId: jobs.at(-1)?.submissionId,
        spoolDir: this.#o.spool.dir,
      },
      'review: jobs dropped at shutdown (neither queued nor spooled when its time ran out)',
    );
    return jobs.length;
  }

  /** Best effort and never spooled: a look-up aid, not review data. Skipped (and counted) while Redis is down. */
  #remember(job: ReviewJob): void {
    const remember = this.#o.remember;
    if (remember === undefined) return;
    if (this.#o.connection.status !== 'ready' || this.#o.breaker?.isOpen === true) {
      this.#o.metrics.lookupSkipped.inc();
      return;
    }
    setImmediate(() => {
      // Cut like a queued item's fields: kept fields are bounded by REVIEW_MAX_FIELD_BYTES, and so is every pass over them.
      remember(withCappedFields(job, this.#o.maxFieldBytes)).catch((err: unknown) => {
        this.#o.metrics.lookupSkipped.inc();
        this.#o.log.debug({ err, submissionId: job.submissionId }, 'review: verdict not kept for look-up');
      });
    });
  }

  /** A job the store shed at its account's full queue: kept for look-up (best effort, like an unqueued one). */
  #shedJob(job: ReviewJob): void {
    this.#shed.add(job);
    this.#remember(job);
  }

  async #send(original: ReviewJob): Promise<void> {
    const job = withCappedFields(original, this.#o.maxFieldBytes);
    try {
      await this.#adds.add(job);
      if (!this.#shed.has(job)) this.#o.metrics.queued.inc();
    } catch (err) {
      // A failed batch is spooled whole, even the jobs of it Redis may have stored: the store ingests one again as a no-op.
      const spooled = await this.#spool(job);
      if (this.#abandoned) return;
      if (spooled.ok) {
        this.#o.metrics.spooled.inc();
        this.#o.log.debug({ submissionId: job.submissionId, err: (err as Error).message }, 'review: job spooled');
      } else {
        this.#dropped(job, spooled.reason, spooled.code);
      }
    }
  }

  /** Queues a job for the next batched spool write; resolves with what became of it. */
  #spool(job: ReviewJob): Promise<AppendResult> {
    return new Promise((done) => {
      this.#toSpool.push({ job, done });
      this.#writeSpool();
    });
  }

  /** One write at a time, taking every job that queued up meanwhile (group commit). */
  #writeSpool(): void {
    if (this.#spoolWriting || this.#toSpool.length === 0) return;
    this.#spoolWriting = true;
    const batch = this.#toSpool.splice(0, SPOOL_BATCH);
    void this.#o.spool
      .appendMany(batch.map((b) => b.job))
      .then(
        (results) => batch.forEach((b, i) => b.done(results[i] ?? { ok: false, reason: 'write_failed' })),
        (err: unknown) =>
          batch.forEach((b) => b.done({ ok: false, reason: 'write_failed', code: (err as NodeJS.ErrnoException).code ?? 'unknown' })),
      )
      .finally(() => {
        this.#spoolWriting = false;
        this.#writeSpool();
      });
  }

  /** Counts a lost job by reason, and logs it at most once per interval with how many went since (ids only, no content). */
  #dropped(job: ReviewJob, reason: DropReason, code?: string): void {
    // Counted already, with every job still in memory, when the shutdown's time ran out.
    if (this.#abandoned) return;
    this.#o.metrics.dropped.inc({ reason });
    const now = Date.now();
    const log = this.#dropLog;
    log.count++;
    if (now - log.at < (this.#o.dropLogIntervalMs ?? 10_000)) return;
    this.#o.log.error(
      {
        reason,
        ...(code === undefined ? {} : { code }),
        dropped: log.count,
        lastSubmissionId: job.submissionId,
        spoolDir: this.#o.spool.dir,
      },
      'review: jobs dropped (neither queued nor spooled)',
    );
    log.at = now;
    log.count = 0;
  }

  #queueJobs(jobs: readonly ReviewJob[]) {
    return jobs.map((job) => ({ name: 'review', data: job, opts: jobOptions(job, this.#o.retentionMs) }));
  }

  /** One call to Redis for a batch of jobs, through the breaker and within the timeout. */
  async #call(send: () => Promise<unknown>): Promise<void> {
    if (this.#o.connection.status !== 'ready') throw new Error('Redis not connected');
    const breaker = this.#o.breaker;
    if (breaker !== undefined) {
      if (breaker.isOpen) throw new Error('Redis circuit open');
      try {
        await this.#bounded(send);
        breaker.succeeded();
      } catch (err) {
        breaker.failed(err instanceof TimeoutError ? 'slow' : 'error');
        throw err;
      }
      return;
    }
    await this.#bounded(send);
  }

  async #bounded(send: () => Promise<unknown>): Promise<void> {
    const ms = this.#o.addTimeoutMs ?? 1_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        send(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TimeoutError(`review write took over ${ms} ms`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
