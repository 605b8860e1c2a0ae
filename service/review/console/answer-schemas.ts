import { z } from 'zod';
import { labelHowSchema, labelSchema } from '../../../core/labels/records.ts';
import { TRAFFIC_EVENTS } from '../dashboard/traffic.ts';
import { reviewJobSchema } from '../intake/job-schema.ts';
import { countsSchema } from './counts-schema.ts';
import { groupSchema } from './list-routes.ts';

// Response schemas of the console's reads: the answers are checked against them (serializerCompiler) and the OpenAPI
// document shows them, so it describes what the page reads.

const count = z.number().int();
const counts = countsSchema;

export const meAnswer = z.object({
  accountId: z.string(),
  moderatorId: z.string(),
  counts,
  forms: z.array(z.string()).describe('form ids that have had items, for the Form filter'),
  keepFieldsDays: z.number().describe('how long the fields of submissions not queued are kept for reporting a miss'),
});

/** A label as the page shows it (who, when, which; its id for a conflict check and an undo). */
const labelAnswer = z.object({
  label: labelSchema,
  moderatorId: z.string(),
  labelledAt: z.string(),
  labelId: z.string().optional().describe('absent from labels given before labels had ids'),
  how: labelHowSchema.optional(),
});

export const itemAnswer = z.object({
  item: reviewJobSchema.describe('the submission as stored (for one not queued whose fields were not kept: no fields)'),
  label: labelAnswer.optional().describe('absent for a pending item'),
  queued: z.boolean().describe('false for a submission that was not queued: a miss to report, or only its verdict'),
  fieldsKept: z.boolean().describe('whether its fields are there'),
  message: z.string().describe('the field a list row shows: the message, else the longest text'),
  email: z.string().nullable().describe("the sender's e-mail when a field holds one"),
  group: groupSchema,
  keepFieldsDays: z.number(),
});

const estimate = z.object({
  value: z.number().nullable().describe('a share in 0..1; null without labels to rest on'),
  labels: count.describe('how many labels the estimate rests on'),
});
const formSummary = z.looseObject({
  formId: z.string(),
  verified: count,
  spam: count,
  spamShare: z.number().nullable(),
  blocked: count,
  rateLimited: count,
  precision: estimate.describe('of the spam verdicts labelled one by one or from the sample: the share confirmed as spam'),
  precisionLeftOut: count.describe('labels left out of precision: bulk, confirm-all, or given before the way was recorded'),
  missedSpam: estimate.describe('of the sampled confident legitimate verdicts labelled: the share that was spam'),
  labels: count,
});
const day = z.looseObject({ day: z.string(), ...Object.fromEntries(TRAFFIC_EVENTS.map((e) => [e, count])) });

// Loose objects: a count the dashboard gains is passed on before its schema names it.
export const dashboardAnswer = z.looseObject({
  from: z.string(),
  to: z.string(),
  days: z.array(day).describe('traffic per UTC day, oldest first'),
  forms: z.array(formSummary),
  total: formSummary,
  histogram: z
    .object({ edges: z.array(z.number()), spam: z.array(count), legitimate: z.array(count) })
    .describe("labelled items by the model's spam score, in ten bins, by label"),
  labelsCut: z.boolean().describe('the period held more labels than were read'),
  band: z.number().describe("the account's review band"),
  sampleRate: z.number().describe("the account's sample rate of confident verdicts"),
  allForms: z.array(z.string()),
});
