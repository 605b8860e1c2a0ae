import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { labelHowSchema, labelSchema } from '../../../core/labels/records.ts';
import { countsSchema } from './counts-schema.ts';
import { undoLabelWithGroup } from './group-label.ts';
import type { ConsoleApi } from './console-api.ts';
import { history } from './history.ts';

const tags = ['review console'];
const historyQuery = z.object({
  moderator: z.string().min(1).max(200).optional(),
  label: labelSchema.optional(),
  how: z.union([labelHowSchema, z.literal('unknown')]).optional(),
  form: z.string().min(1).max(200).optional(),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
const historyRow = z.object({
  submissionId: z.string(),
  labelId: z.string().nullable(),
  formId: z.string(),
  label: labelSchema,
  moderatorId: z.string(),
  labelledAt: z.string(),
  how: labelHowSchema.nullable().describe('single, bulk or reported; null for a label given before this was recorded'),
  modelStatus: labelSchema,
  modelConfidence: z.number(),
  message: z.string(),
  email: z.string().nullable(),
});
const historyAnswer = z.object({
  rows: z.array(historyRow),
  total: z.number().int(),
  scanCapped: z.boolean().describe('true when the account holds more labels than the newest 2,000 the history reads'),
  moderators: z.array(z.string()),
});
const undoBody = z.object({ seen: z.string().min(1).max(64) });
const idParams = z.object({ id: z.string().uuid() });
const counts = countsSchema;
const undoAnswer = z.object({
  kind: z.enum(['undone', 'restored', 'changed', 'gone']),
  by: z.string().optional(),
  members: z.number().int().describe('labels of the same action taken back with a group leader’s (its similar submissions)'),
  counts,
});

/** The history of labels, and undo of any one of them from there. */
export function historyRoutes(app: FastifyInstance, api: ConsoleApi): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/history',
    {
      config: { invalid: 'Bad request: invalid history filter' },
      schema: {
        tags,
        summary: 'Labelled items, newest first: who, when, which label, single or bulk',
        querystring: historyQuery,
        response: { 200: historyAnswer },
      },
    },
    async (request) => {
      const m = api.who(request);
      return history(api.store, m.accountId, request.query);
    },
  );

  r.post(
    '/api/items/:id/unlabel',
    {
      bodyLimit: 1024,
      config: { invalid: 'Bad request: send {"seen": "<labelId>"} for a submissionId' },
      schema: {
        tags,
        summary: 'Take back the label shown in the history, while it is still the item’s label',
        params: idParams,
        body: undoBody,
        response: { 200: undoAnswer },
      },
    },
    async (request) => {
      const m = api.who(request);
      const result = await undoLabelWithGroup(api.store, m.accountId, request.params.id, request.body.seen);
      if (result.kind === 'undone' || result.kind === 'restored')
        request.log.info(
          { accountId: m.accountId, moderatorId: m.moderatorId, submissionId: request.params.id, members: result.members },
          'review: label undone from the history',
        );
      return { ...result, counts: await api.store.items.counts(m.accountId) };
    },
  );
}
