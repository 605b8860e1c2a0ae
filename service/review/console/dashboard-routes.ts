import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dashboard } from '../dashboard/dashboard.ts';
import { dashboardAnswer } from './answer-schemas.ts';
import type { ConsoleApi } from './console-api.ts';

/** Chart.js's browser build, served from node_modules with the console: no CDN, so it works offline. */
async function chartJs(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return readFile(path.join(path.dirname(entry), 'chart.umd.min.js'), 'utf8');
}

/** The dashboard: what the filter did for the account, per form and day, and what the labels say of it. */
export async function dashboardRoutes(app: FastifyInstance, api: ConsoleApi, retentionDays: number): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const chart = await chartJs();
  const query = z.object({
    days: z.coerce
      .number()
      .int()
      .min(1)
      .max(Math.max(1, Math.floor(retentionDays)))
      .default(Math.min(14, Math.max(1, Math.floor(retentionDays)))),
    form: z.string().min(1).max(200).optional(),
  });
  r.get('/vendor/chart.umd.min.js', { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(chart),
  );
  r.get(
    '/api/dashboard',
    {
      config: { invalid: 'Bad request: days is a whole number within the retention period' },
      schema: {
        tags: ['review console'],
        summary: 'What the filter did for the account, per form and day, with estimates from labels',
        querystring: query,
        response: { 200: dashboardAnswer },
      },
    },
    async (request) => {
      const m = api.who(request);
      const policy = api.policyFor(m.accountId);
      const d = await dashboard(api.store.redis, api.store.keys, m.accountId, {
        days: request.query.days,
        formId: request.query.form,
        band: policy.band,
        now: api.now(),
      });
      // Spread: a loose schema object takes any further count a form's summary gains.
      return {
        ...d,
        days: d.days.map((x) => ({ ...x })),
        forms: d.forms.map((f) => ({ ...f })),
        total: { ...d.total },
        band: policy.band,
        sampleRate: policy.sampleRate,
        allForms: await api.store.items.forms(m.accountId),
      };
    },
  );
}
