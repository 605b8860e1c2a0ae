import { z } from 'zod';
import { labelRecordSchema, labelSchema } from '../../../core/labels/records.ts';
import { itemAnswer, meAnswer } from './answer-schemas.ts';

// One zod object per request part: it validates the request (fastify-type-provider-zod), types the handler, and is
// shown in the OpenAPI document.
export const signInBody = z.object({ token: z.string().min(1).max(512) });
export const labelBody = z.object({
  label: labelSchema,
  /**
   * The label the moderator saw: null for none (a pending item), or its labelId. Its labelledAt is still taken (a
   * label without an id, a page loaded before labels had ids), though it cannot tell two labels of one millisecond
   * apart. Omitted: no check.
   */
  expected: z.union([labelRecordSchema.shape.labelId.unwrap(), labelRecordSchema.shape.labelledAt]).nullable().optional(),
});
export const idParams = z.object({ id: z.uuid() });

const tags = ['review console'];

/** Route schemas; `invalid` is the console's message for a request that does not fit them. */
export const reviewSchemas = {
  signIn: { schema: { tags, summary: 'Sign in with a moderator token', body: signInBody }, invalid: 'Send {"token": "<moderator token>"}' },
  signOut: { schema: { tags, summary: 'End this session' } },
  me: { schema: { tags, summary: 'The signed-in moderator, their counts and forms', response: { 200: meAnswer } } },
  item: {
    schema: { tags, summary: 'One submission of this account', params: idParams, response: { 200: itemAnswer } },
    invalid: 'A submissionId is a UUID',
  },
  label: {
    schema: { tags, summary: 'Label (or relabel) a submission', params: idParams, body: labelBody },
    invalid: 'Send {"label": "spam" | "legitimate"} for a submissionId',
  },
  undo: { schema: { tags, summary: "Undo this moderator's newest label" } },
} as const;
