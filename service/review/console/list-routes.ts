import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { labelSchema } from '../../../core/labels/records.ts';
import { capFields } from '../intake/fields.ts';
import { reviewJobSchema, type ReviewJob } from '../intake/job-schema.ts';
import type { ListEntry } from '../store/listing.ts';
import { LabelConflictError } from '../store/labels.ts';
import { MAX_BULK_ITEMS } from '../store/bulk.ts';
import { messageOf } from '../text/message.ts';
import type { ConsoleApi } from './console-api.ts';
import { countsSchema } from './counts-schema.ts';
import { listView, pendingSummary } from './list-view.ts';

const FORM = z.string().min(1).max(200);
const listQuery = z.object({
  form: FORM.optional(),
  status: labelSchema.optional(),
  /** receivedAt range, ISO 8601 with its offset; both ends included. */
  from: z.string().datetime({ offset: true }).optional(),
  to: z.string().datetime({ offset: true }).optional(),
  sort: z.enum(['oldest', 'newest', 'confidence-high', 'confidence-low']).default('oldest'),
  q: z.string().max(300).optional(),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
const bulkBody = z.object({ ids: z.array(z.string().uuid()).min(1).max(MAX_BULK_ITEMS), label: labelSchema });
const confirmQuery = z.object({ form: FORM.optional(), min: z.coerce.number().min(0).max(1) });
const confirmBody = z.object({ form: FORM.optional(), min: z.number().min(0).max(1) });
const idParams = z.object({ id: z.string().uuid() });
const reportBody = z.object({
  label: labelSchema,
  fields: z.record(z.string().max(256), z.unknown()).refine((f) => Object.keys(f).length > 0, 'no fields'),
});
const tags = ['review console'];
const count = z.number().int();
/** Similar submissions grouped with a row's item: one label labels them all, one undo takes that back. */
export const groupSchema = z
  .object({
    size: count.describe(
      'how many similar submissions the row stands for (same template, names, numbers and links varied), itself included',
    ),
    examples: z
      .array(z.object({ submissionId: z.string(), message: z.string(), email: z.string().nullable() }))
      .describe('a few of the others, oldest first'),
  })
  .describe('the group of similar submissions this row leads; size 1 when it leads none');
/** One list row, as the page reads it: the stored item, what the row shows first, and its label. */
const rowSchema = reviewJobSchema.extend({
  message: z.string().describe('the field the row shows: the message, else the longest text'),
  email: z.string().nullable().describe("the sender's e-mail when a field holds one"),
  queued: z.boolean().describe('false for a submission that was not queued, whose fields were kept for reporting a miss'),
  campaign: count.describe('how many identical submissions this row stands for, itself included'),
  group: groupSchema,
  label: z.object({ label: labelSchema, moderatorId: z.string(), labelledAt: z.string(), labelId: z.string().nullable() }).nullable(),
});
const listAnswer = z.object({
  rows: z.array(rowSchema),
  total: count,
  scanCapped: z.boolean().describe('a search with Form or Verdict filters read only the newest 1,000 hits'),
  offset: count,
  limit: count,
  counts: countsSchema,
  summary: z.object({
    pending: count,
    byStatus: z.object({ spam: count, legitimate: count }),
    byForm: z.record(z.string(), count),
  }),
});

/** A list row: the item as stored, with what the row shows first (the message, the sender's address). */
export function row(
  entry: ListEntry | { item: ReviewJob; label?: ListEntry['label']; queued: boolean; campaign?: number; group?: ListEntry['group'] },
) {
  const { message, email } = messageOf(entry.item.fields);
  const l = entry.label;
  return {
    ...entry.item,
    message,
    email: email ?? null,
    queued: entry.queued,
    campaign: entry.campaign ?? 1,
    group: groupView(entry.group),
    label: l === undefined ? null : { label: l.label, moderatorId: l.moderatorId, labelledAt: l.labelledAt, labelId: l.labelId ?? null },
  };
}

/** A group as the page reads it: its size, and each example's message and sender. */
export function groupView(group: ListEntry['group'] | undefined): z.infer<typeof groupSchema> {
  if (group === undefined) return { size: 1, examples: [] };
  return {
    size: group.size,
    examples: group.examples.map((item) => {
      const { message, email } = messageOf(item.fields);
      return { submissionId: item.submissionId, message, email: email ?? null };
    }),
  };
}

/** The moderators' day: lists with search, date range, sort and counts; bulk labels; reporting misses. */
export function listRoutes(app: FastifyInstance, api: ConsoleApi): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/list',
    {
      config: { invalid: 'Bad request: invalid list filter' },
      schema: {
        tags,
        summary: 'Items found by filters, date range, sort and search, paged, with counts',
        querystring: listQuery,
        response: { 200: listAnswer },
      },
    },
    async (request) => {
      const m = api.who(request);
      const q = request.query;
      const range = {
        formId: q.form,
        status: q.status,
        from: q.from === undefined ? undefined : Date.parse(q.from),
        to: q.to === undefined ? undefined : Date.parse(q.to),
      };
      const [page, counts, summary] = await Promise.all([
        listView(api.store, m.accountId, { ...range, sort: q.sort, search: q.q, offset: q.offset, limit: q.limit }),
        api.store.items.counts(m.accountId),
        pendingSummary(api.store, m.accountId, range),
      ]);
      return {
        rows: page.entries.map(row),
        total: page.total,
        scanCapped: page.scanCapped,
        offset: q.offset,
        limit: q.limit,
        counts,
        summary,
      };
    },
  );

  r.post(
    '/api/bulk/label',
    {
      bodyLimit: 256 * 1024,
      config: { invalid: 'Bad request: send {"ids": [submissionIds], "label": "spam" | "legitimate"}' },
      schema: { tags, summary: 'Label many pending items in one action (one undo)', body: bulkBody },
    },
    async (request) => {
      const m = api.who(request);
      // A row that leads a group of similar submissions stands for all of them: they are labelled in the same action.
      const ids = await api.store.near.expand(m.accountId, request.body.ids);
      const result = await api.store.bulk.label(m.accountId, ids, request.body.label, m.moderatorId);
      logBulk(request, m, result.labelled, request.body.label);
      return { ...result, counts: await api.store.items.counts(m.accountId) };
    },
  );

  r.get(
    '/api/bulk/confirm',
    {
      config: { invalid: 'Bad request: min is a confidence from 0 to 1' },
      schema: { tags, summary: 'How many pending spam verdicts at or above a confidence a confirm-all takes', querystring: confirmQuery },
    },
    async (request) => {
      const m = api.who(request);
      return api.store.bulk.confirmPreview(m.accountId, { formId: request.query.form, min: request.query.min });
    },
  );

  r.post(
    '/api/bulk/confirm',
    {
      bodyLimit: 4096,
      config: { invalid: 'Bad request: send {"min": <confidence 0..1>, "form"?: "<formId>"}' },
      schema: { tags, summary: 'Label spam every pending spam verdict at or above a confidence (one undo)', body: confirmBody },
    },
    async (request) => {
      const m = api.who(request);
      const result = await api.store.bulk.confirm(m.accountId, { formId: request.body.form, min: request.body.min }, m.moderatorId);
      logBulk(request, m, result.labelled, 'spam');
      return { ...result, counts: await api.store.items.counts(m.accountId) };
    },
  );

  // A miss past the keep-fields window: the moderator pastes its fields, which are labelled (and exported) with its verdict.
  r.post(
    '/api/items/:id/report',
    {
      bodyLimit: 256 * 1024,
      config: { invalid: 'Bad request: send {"label": "spam" | "legitimate", "fields": {…}} for a submissionId' },
      schema: { tags, summary: 'Report a miss whose fields were not kept, with its pasted fields', params: idParams, body: reportBody },
    },
    async (request, reply) => {
      const m = api.who(request);
      const entry = await api.store.items.get(m.accountId, request.params.id);
      if (entry === undefined) return reply.code(404).send({ error: 'No such submission for this account within retention.' });
      if (entry.fieldsKept) return reply.code(409).send({ error: 'The fields of this submission are kept: label it as it is.' });
      const capped = capFields(request.body.fields, api.maxFieldBytes);
      let record;
      try {
        record = await api.store.labels.label(m.accountId, request.params.id, request.body.label, m.moderatorId, {
          expected: null,
          pasted: { fields: capped.fields, truncated: capped.truncated, ...(capped.cut.length > 0 ? { cutFields: capped.cut } : {}) },
        });
      } catch (err) {
        if (err instanceof LabelConflictError) return reply.code(409).send({ error: 'Someone labelled this submission meanwhile.' });
        throw err;
      }
      if (record === undefined) return reply.code(404).send({ error: 'No such submission for this account within retention.' });
      request.log.info(
        { accountId: m.accountId, moderatorId: m.moderatorId, submissionId: request.params.id, label: record.label },
        'review: miss reported with pasted fields',
      );
      return {
        label: record.label,
        labelId: record.labelId,
        labelledAt: record.labelledAt,
        counts: await api.store.items.counts(m.accountId),
      };
    },
  );
}

function logBulk(request: FastifyRequest, m: { accountId: string; moderatorId: string }, labelled: number, label: string): void {
  request.log.info({ accountId: m.accountId, moderatorId: m.moderatorId, labelled, label }, 'review: bulk label');
}
