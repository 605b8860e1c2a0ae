import { z } from 'zod';
import { queuedSchema, type Queued } from '../../../core/classifier/shadow-store.ts';

/** Data of one review-queue job; the job id is the submissionId, so a submission is queued once. */
export const reviewJobSchema = z.object({
  submissionId: z.string().uuid(),
  accountId: z.string().min(1),
  formId: z.string().min(1),
  receivedAt: z.string().datetime(),
  origin: z.string().nullable(),
  /** Submitted fields, size-capped (see REVIEW_MAX_FIELD_BYTES); `truncated` says whether anything was cut. */
  fields: z.record(z.string(), z.unknown()),
  truncated: z.boolean(),
  /** Which fields were cut (names as in `fields`); absent from items queued before this was recorded. */
  cutFields: z.array(z.string()).optional(),
  /**
   * Set on a submission that was not queued and that a moderator reported as a miss: its fields were `kept`
   * (REVIEW_KEEP_FIELDS_DAYS) or `pasted` by the moderator. Such labels are no random sample (the dashboard knows).
   */
  reported: z.enum(['kept', 'pasted']).optional(),
  verdict: z.object({
    status: z.enum(['spam', 'legitimate']),
    confidence: z.number().min(0).max(1),
    reasoning: z.string(),
    modelVersion: z.string(),
  }),
  /** Why the policy queued it, and its chance of being queued: absent from items queued before this was recorded. */
  queued: queuedSchema.optional(),
  /** The shadow model's verdict, when it scored this submission too (after the answer; the caller never saw it). */
  shadow: z.object({ status: z.enum(['spam', 'legitimate']), confidence: z.number().min(0).max(1), modelVersion: z.string() }).optional(),
});

/** The active and the shadow model gave different verdicts: queued for review so moderators settle it. */
export function isDisagreement(job: Pick<ReviewJob, 'verdict' | 'shadow'>): boolean {
  return job.shadow !== undefined && job.shadow.status !== job.verdict.status;
}

export type ReviewJob = z.infer<typeof reviewJobSchema>;

/** What the verify route hands to the review queue after each verdict; it never blocks or throws. */
export interface ReviewSink {
  /**
   * Decides (disagreement / spam / low confidence / sample) and queues off the response path. Returns why the job
   * goes to review (so a moderator may label it), or undefined when it does not.
   */
  offer(job: ReviewJob): Queued | undefined;
  close(): Promise<void>;
}
