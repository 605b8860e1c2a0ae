import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor } from '../../../core/features/index.ts';
import { registrableDomain } from '../../../core/features/registrable-domain.ts';
import { isMailProvider } from '../../../core/features/webmail.ts';
import type { FormFields } from '../../../core/features/form-fields.ts';
import { ENTRY_KINDS, LIST_NAMES, listEntrySchema, type EntryKind } from '../lists/entry.ts';
import type { ListsStore, StoredEntry } from '../lists/store.ts';
import type { ConsoleApi } from './console-api.ts';

const tags = ['review console'];
const entryAnswer = z.object({
  list: z.enum(LIST_NAMES),
  kind: z.enum(ENTRY_KINDS),
  value: z.string(),
  by: z.string().describe('the moderator who added it'),
  at: z.number().describe('when, in ms since the epoch'),
});
const listsQuery = z.object({
  list: z.enum(LIST_NAMES).optional(),
  kind: z.enum(ENTRY_KINDS).optional(),
  q: z.string().max(300).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});
const listsAnswer = z.object({
  entries: z.array(entryAnswer),
  total: z.number().int().describe('entries matching the filter'),
  size: z.number().int().describe("the account's entries on both lists"),
  max: z.number().int().describe('LISTS_MAX_ENTRIES: entries an account may hold on both lists together'),
});
const changeAnswer = z.object({
  result: z.enum(['added', 'moved', 'exists', 'removed', 'absent']),
  list: z.enum(LIST_NAMES),
  kind: z.enum(ENTRY_KINDS),
  value: z.string(),
});
const candidate = z.object({
  kind: z.enum(ENTRY_KINDS),
  value: z.string(),
  listed: z.enum(LIST_NAMES).nullable().describe('the list the value is on already, if any'),
  note: z.string().optional(),
});
const candidatesAnswer = z.object({ candidates: z.array(candidate) });
const idParams = z.object({ id: z.string().uuid() });
const errorAnswer = z.object({ error: z.string() });
const INVALID_ENTRY =
  'Send {"list": "block" | "allow", "kind": "sender" | "email-domain" | "link-domain", "value": "<address or domain>"}: a sender is an e-mail address (name@example.com), a domain a host name (example.com)';

/** Links an item offers to list, at most: the first hosts of the submission, by their registrable domain. */
const MAX_LINK_CANDIDATES = 5;

/** The account's allow and block lists: the list view (read, add, remove) and the entries an item offers. */
export function listsRoutes(app: FastifyInstance, api: ConsoleApi, store: ListsStore): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // The item's sender and links, read by the same extractor as verify's (one per console; calls are synchronous).
  const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);

  r.get(
    '/api/lists',
    {
      config: { invalid: 'Bad request: list is block or allow, kind sender, email-domain or link-domain' },
      schema: {
        tags,
        summary: "The account's allow and block list entries, newest first",
        querystring: listsQuery,
        response: { 200: listsAnswer },
      },
    },
    async (request) => {
      const m = api.who(request);
      const { list, kind, q, offset, limit } = request.query;
      const all = await store.entries(m.accountId);
      const needle = q?.trim().toLowerCase();
      const matching = all.filter(
        (e) => (list === undefined || e.list === list) && (kind === undefined || e.kind === kind) && (!needle || e.value.includes(needle)),
      );
      return { entries: matching.slice(offset, offset + limit), total: matching.length, size: all.length, max: store.maxEntries };
    },
  );

  r.post(
    '/api/lists',
    {
      bodyLimit: 2048,
      config: { invalid: INVALID_ENTRY },
      schema: {
        tags,
        summary: 'Add an entry (a value on the other list moves to this one)',
        body: listEntrySchema,
        response: { 200: changeAnswer, 409: errorAnswer },
      },
    },
    async (request, reply) => {
      const m = api.who(request);
      const entry = request.body;
      const result = await store.add(m.accountId, entry, m.moderatorId);
      if (result === 'full') {
        return reply.code(409).send({
          error: `Not added: this account's lists hold ${store.maxEntries} entries, the most LISTS_MAX_ENTRIES allows. Remove some first.`,
        });
      }
      request.log.info(
        { accountId: m.accountId, moderatorId: m.moderatorId, list: entry.list, kind: entry.kind, result },
        'review: list entry added',
      );
      return { result, list: entry.list, kind: entry.kind, value: entry.value };
    },
  );

  r.post(
    '/api/lists/remove',
    {
      bodyLimit: 2048,
      config: { invalid: INVALID_ENTRY },
      schema: { tags, summary: 'Remove an entry', body: listEntrySchema, response: { 200: changeAnswer } },
    },
    async (request) => {
      const m = api.who(request);
      const entry = request.body;
      const removed = await store.remove(m.accountId, entry);
      if (removed)
        request.log.info(
          { accountId: m.accountId, moderatorId: m.moderatorId, list: entry.list, kind: entry.kind },
          'review: list entry removed',
        );
      return { result: removed ? ('removed' as const) : ('absent' as const), list: entry.list, kind: entry.kind, value: entry.value };
    },
  );

  r.get(
    '/api/items/:id/lists',
    {
      config: { invalid: 'A submissionId is a UUID' },
      schema: {
        tags,
        summary: "What of this item can be listed: its sender, the sender's domain, the domains it links to",
        params: idParams,
        response: { 200: candidatesAnswer, 404: errorAnswer },
      },
    },
    async (request, reply) => {
      const m = api.who(request);
      const entry = await api.store.items.get(m.accountId, request.params.id);
      if (entry === undefined) return reply.code(404).send({ error: 'No such submission for this account (or it is past retention)' });
      const facts = extractor.extract(entry.item.fields as FormFields).facts;
      const out: { kind: EntryKind; value: string; note?: string }[] = [];
      const add = (kind: EntryKind, value: string, note?: string) => {
        if (out.some((c) => c.kind === kind && c.value === value)) return;
        out.push({ kind, value, ...(note === undefined ? {} : { note }) });
      };
      const sender = facts.senderAddress;
      if (sender !== null) {
        add('sender', sender);
        const domain = sender.slice(sender.lastIndexOf('@') + 1);
        // A mail provider's domain is everyone's: offered with a warning, not as a plain choice.
        add('email-domain', domain, isMailProvider(domain) ? `${domain} is a mail provider: listing it covers all its users` : undefined);
      }
      for (const host of facts.seenHosts) {
        if (out.filter((c) => c.kind === 'link-domain').length >= MAX_LINK_CANDIDATES) break;
        add('link-domain', registrableDomain(host));
      }
      const listed = await store.listedOf(m.accountId, out);
      const candidates = out.map((c, i) => ({ ...c, listed: listed[i] ?? null }));
      return { candidates };
    },
  );
}

export type { StoredEntry };
