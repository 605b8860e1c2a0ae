import { Queue, Worker, type Job } from 'bullmq';
import type { RedisClient } from '../../config/redis-target.ts';
import type { Logger } from 'pino';
import { reviewJobSchema, type ReviewJob } from './job-schema.ts';
import type { ReviewStore } from '../store/review-store.ts';

/**
 * One BullMQ queue carries review jobs from every account into the review store. The queue is only the
 * durable, idempotent hand-over (job id = submissionId); account isolation lives in the store's
 * per-account keys, which is also where the console's oldest-first listing and filters are cheap.
 */
export const REVIEW_QUEUE = 'review';

export function reviewQueue(connection: RedisClient, prefix: string): Queue<ReviewJob> {
  return new Queue<ReviewJob>(REVIEW_QUEUE, { connection, prefix });
}

/** Options for each add: the id makes re-adds (spool replays, retries) no-ops while the job exists. */
export function jobOptions(job: ReviewJob, retentionMs: number) {
  return {
    jobId: job.submissionId,
    attempts: 20,
    backoff: { type: 'exponential' as const, delay: 1_000 },
    // Completed jobs go at once: the store's item key (SET NX for the whole retention) is what keeps a
    // submission from being stored twice after BullMQ has forgotten the job id.
    removeOnComplete: true,
    removeOnFail: { age: Math.ceil(retentionMs / 1000) },
  };
}

/** Moves queued jobs into the review store; runs in every service instance with REDIS_URL. */
export function ingestWorker(connection: RedisClient, prefix: string, store: ReviewStore, log: Logger): Worker<ReviewJob> {
  const worker = new Worker<ReviewJob>(
    REVIEW_QUEUE,
    async (job: Job<ReviewJob>) => {
      const parsed = reviewJobSchema.safeParse(job.data);
      if (!parsed.success) {
        log.warn({ jobId: job.id }, 'review: malformed job dropped');
        return 'malformed';
      }
      return store.items.ingest(parsed.data);
    },
    // Ingest is idempotent and quick, so a short lock is safe and a job stalled by a Redis restart is picked up soon.
    { connection, prefix, concurrency: 4, lockDuration: 10_000, stalledInterval: 5_000 },
  );
  worker.on('error', (err) => log.debug({ err: err.message }, 'review worker error'));
  worker.on('failed', (job, err) => log.warn({ jobId: job?.id, err: err.message }, 'review: ingest failed, will retry'));
  return worker;
}
