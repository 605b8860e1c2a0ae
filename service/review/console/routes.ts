import { readFile } from 'node:fs/promises';
import path from 'node:path';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { findModerator, hasModerators, stillModerator, type Moderator, type ModeratorSource } from './auth.ts';
import type { SessionStore } from './sessions.ts';
import { CONSOLE_HEADERS } from './headers.ts';
import { reviewSchemas } from './route-schemas.ts';
import { SignInGuard } from './sign-in-guard.ts';
import { LabelConflictError } from '../store/labels.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { ReviewPolicy } from '../intake/policy.ts';
import type { ConsoleApi } from './console-api.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { groupView, listRoutes, row } from './list-routes.ts';
import { labelGroup } from './group-label.ts';
import { historyRoutes } from './history-routes.ts';
import { listsRoutes } from './lists-routes.ts';
import type { ListsStore } from '../lists/store.ts';

// Says how to turn the console on, not only that it is off.
const NO_MODERATORS =
  'The review console is off: no moderators are configured. Add one with: npm run tenants -- add-moderator <accountId> <moderatorId>';

export const SESSION_COOKIE = 'fg_review';
/** State-changing calls must carry this header (and a JSON body): a cross-site form can send neither. */
export const CSRF_HEADER = 'x-formguard-review';

export interface ReviewRoutesOptions {
  readonly store: ReviewStore;
  readonly sessions: SessionStore;
  readonly moderators: ModeratorSource;
  readonly log: Logger;
  /** Force the cookie's Secure flag (default: set when the request came over HTTPS). */
  readonly secureCookie?: boolean;
  /** The account's review band and sample rate, for the dashboard's estimates. */
  readonly policyFor: (accountId: string) => ReviewPolicy;
  readonly keepFieldsDays: number;
  readonly retentionDays: number;
  /** Pasted fields of a reported miss are cut like queued ones. */
  readonly maxFieldBytes: number;
  /** The accounts' allow and block lists (the Lists view and an item's "block this sender"). */
  readonly lists?: ListsStore;
  readonly now?: () => number;
}

const CONSOLE_DIR = path.join(repoRoot, 'service', 'review', 'console', 'assets');
// The page's scripts are ES modules (app.js imports the rest): served as JavaScript, which a module script must be.
const JS = 'text/javascript; charset=utf-8';
const ASSETS = {
  'index.html': 'text/html; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'api.js': JS,
  'app.js': JS,
  'dashboard.js': JS,
  'dom.js': JS,
  'history.js': JS,
  'keys.js': JS,
  'labelling.js': JS,
  'lists.js': JS,
  'navigation.js': JS,
  'render-detail.js': JS,
  'render-list.js': JS,
  'render-target.js': JS,
  'render.js': JS,
  'selection.js': JS,
  'sign-in.js': JS,
  'state.js': JS,
  'text.js': JS,
  'url-state.js': JS,
  'views.js': JS,
} as const;

/** Every file the console serves from its assets folder, the page included. */
export const CONSOLE_FILES = Object.keys(ASSETS) as (keyof typeof ASSETS)[];

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    moderator?: Moderator;
  }
  interface FastifyContextConfig {
    /** The console's message for a request its route schema refuses. */
    invalid?: string;
    /** Served without a session (the page, its assets, sign-in and sign-out); every other console route needs one. */
    public?: boolean;
  }
}

/** The moderator console and its JSON API, registered by the app under the prefix /review. */
export function reviewRoutes(opts: ReviewRoutesOptions): FastifyPluginAsync {
  return async (app) => {
    const assets = new Map<string, string>();
    for (const name of CONSOLE_FILES) assets.set(name, await readFile(path.join(CONSOLE_DIR, name), 'utf8'));
    if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
    const guard = new SignInGuard();

    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(CONSOLE_HEADERS);
      return payload;
    });
    // The router's own 404s under /review go through the console's hooks too, so they carry its headers.
    app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'Not found' }));

    app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
      if ((err as { validation?: unknown }).validation !== undefined)
        return reply.code(400).send({ error: request.routeOptions.config.invalid ?? 'Bad request' });
      const status =
        err instanceof HttpError ? err.statusCode : err.statusCode !== undefined && err.statusCode < 500 ? err.statusCode : 500;
      if (status >= 500) {
        // Redis down or a bug: say little to the browser, log the error (never the body: it may hold a token).
        request.log.error({ err: { message: err.message, name: err.name } }, 'review console error');
        return reply.code(503).send({ error: 'The review store is not available; try again shortly.' });
      }
      return reply.code(status).send({ error: err instanceof HttpError ? err.message : 'Bad request' });
    });

    const asset = (name: keyof typeof ASSETS) => async (_request: FastifyRequest, reply: FastifyReply) => {
      if (!hasModerators(opts.moderators)) throw new HttpError(404, NO_MODERATORS);
      return reply.type(ASSETS[name]).send(assets.get(name));
    };
    // The page and its assets are not part of the API: kept out of the OpenAPI document, and served signed out.
    const PUBLIC_ASSET = { schema: { hide: true }, config: { public: true } };
    app.get('/', PUBLIC_ASSET, asset('index.html'));
    for (const name of CONSOLE_FILES) if (name !== 'index.html') app.get(`/${name}`, PUBLIC_ASSET, asset(name));

    // Every state-changing call: JSON body plus the custom header (SameSite=Strict cookie does the rest). Checked on
    // the headers alone, before the body is read or validated.
    app.addHook('onRequest', async (request) => {
      if (request.method === 'GET' || request.method === 'HEAD') return;
      const type = request.headers['content-type'] ?? '';
      if (!type.toLowerCase().startsWith('application/json') || request.headers[CSRF_HEADER] !== '1') {
        throw new HttpError(403, 'Forbidden');
      }
    });

    const authenticated = async (request: FastifyRequest) => {
      const record = await opts.sessions.get(request.cookies[SESSION_COOKIE]);
      if (record === undefined || !stillModerator(opts.moderators, record)) throw new HttpError(401, 'Not signed in');
      request.moderator = { accountId: record.accountId, moderatorId: record.moderatorId };
    };
    // The one authentication hook: every console route needs a session unless it says it is public. The session is
    // checked before the request is validated, so a signed-out caller learns nothing of the API's shape; the router's
    // own 404s stay 404s.
    app.addHook('preValidation', async (request) => {
      if (request.is404 || request.routeOptions.config.public === true) return;
      await authenticated(request);
    });
    const who = (request: FastifyRequest): Moderator => {
      if (request.moderator === undefined) throw new HttpError(401, 'Not signed in');
      return request.moderator;
    };

    const signInOpen = async () => {
      if (!hasModerators(opts.moderators)) throw new HttpError(404, NO_MODERATORS);
    };

    app.setValidatorCompiler(validatorCompiler);
    // Answers with a response schema are checked against it: the OpenAPI describes what the page reads.
    app.setSerializerCompiler(serializerCompiler);
    const api = app.withTypeProvider<ZodTypeProvider>();
    const { signIn, signOut, me, item, label, undo } = reviewSchemas;
    api.post(
      '/api/session',
      { ...signIn, config: { invalid: signIn.invalid, public: true }, bodyLimit: 4096, preValidation: signInOpen },
      async (request, reply) => {
        // The token is checked before the address's failures: a right token always signs in, so one person's typos
        // (or a guesser) behind a shared address (an office NAT, a proxy without TRUST_PROXY) lock nobody else out.
        const moderator = findModerator(opts.moderators, request.body.token);
        if (moderator === undefined) {
          if (guard.blocked(request.ip)) {
            reply.header('retry-after', String(guard.retryAfterSeconds(request.ip)));
            throw new HttpError(429, 'Too many failed sign-ins from this address; wait a few minutes. A valid token still signs in.');
          }
          guard.fail(request.ip);
          request.log.info({ ip: request.ip }, 'review: failed sign-in');
          if (guard.blocked(request.ip)) request.log.warn({ ip: request.ip }, 'review: too many failed sign-ins from one address');
          throw new HttpError(401, 'Unknown token');
        }
        const id = await opts.sessions.create(moderator);
        request.log.info({ accountId: moderator.accountId, moderatorId: moderator.moderatorId }, 'review: moderator signed in');
        reply.setCookie(SESSION_COOKIE, id, {
          path: '/review',
          httpOnly: true,
          sameSite: 'strict',
          secure: opts.secureCookie ?? request.protocol === 'https',
          maxAge: opts.sessions.ttlSeconds,
        });
        return { accountId: moderator.accountId, moderatorId: moderator.moderatorId };
      },
    );

    app.post('/api/sign-out', { ...signOut, config: { public: true } }, async (request, reply) => {
      await opts.sessions.destroy(request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, { path: '/review' });
      return { signedOut: true };
    });

    app.get('/api/me', me, async (request) => {
      const m = who(request);
      const [counts, forms] = await Promise.all([opts.store.items.counts(m.accountId), opts.store.items.forms(m.accountId)]);
      return { ...m, counts, forms, keepFieldsDays: opts.keepFieldsDays };
    });

    const consoleApi: ConsoleApi = {
      store: opts.store,
      who,
      policyFor: opts.policyFor,
      keepFieldsDays: opts.keepFieldsDays,
      maxFieldBytes: opts.maxFieldBytes,
      now: opts.now ?? Date.now,
    };
    listRoutes(app, consoleApi);
    historyRoutes(app, consoleApi);
    if (opts.lists !== undefined) listsRoutes(app, consoleApi, opts.lists);
    await dashboardRoutes(app, consoleApi, opts.retentionDays);

    api.get('/api/items/:id', { ...item, config: { invalid: item.invalid } }, async (request) => {
      const m = who(request);
      const entry = await opts.store.items.get(m.accountId, request.params.id);
      if (entry === undefined) throw new HttpError(404, 'No such submission for this account (or it is past retention)');
      const { message, email } = row(entry);
      const group = groupView(await opts.store.near.group(m.accountId, request.params.id));
      return { ...entry, message, email, group, keepFieldsDays: opts.keepFieldsDays };
    });

    api.post('/api/items/:id/label', { ...label, config: { invalid: label.invalid }, bodyLimit: 4096 }, async (request, reply) => {
      const m = who(request);
      const { id } = request.params;
      const body = request.body;
      let record;
      let labelled = 1;
      try {
        // A pending row that leads a group of similar submissions: one label for the group, one undo takes it back.
        const group =
          body.expected === undefined || body.expected === null
            ? await labelGroup(opts.store, m.accountId, id, body.label, m.moderatorId)
            : undefined;
        if (group !== undefined) ({ record, labelled } = group);
        else
          record = await opts.store.labels.label(
            m.accountId,
            id,
            body.label,
            m.moderatorId,
            body.expected === undefined ? {} : { expected: body.expected },
          );
      } catch (err) {
        if (!(err instanceof LabelConflictError)) throw err;
        // Someone else labelled (or undid) it since this moderator saw it: say what it is now and change nothing.
        const now = err.current;
        return reply.code(409).send({
          error:
            now === undefined
              ? 'Not labelled: the label you saw was taken back meanwhile, and the item is unlabelled now. Label it again if you mean it.'
              : `Not labelled: ${now.moderatorId} labelled it ${now.label} meanwhile. Label it again if you mean to replace that label.`,
          label:
            now === undefined ? null : { label: now.label, moderatorId: now.moderatorId, labelledAt: now.labelledAt, labelId: now.labelId },
        });
      }
      if (record === undefined) {
        throw new HttpError(
          404,
          'Not labelled: no such submission for this account within retention, or its fields were not kept (paste them to report it)',
        );
      }
      request.log.info(
        { accountId: m.accountId, moderatorId: m.moderatorId, submissionId: id, label: body.label, labelled },
        'review: labelled',
      );
      return {
        labelled,
        label: record.label,
        labelId: record.labelId,
        labelledAt: record.labelledAt,
        counts: await opts.store.items.counts(m.accountId),
      };
    });

    app.post('/api/undo', { ...undo, bodyLimit: 1024 }, async (request) => {
      const m = who(request);
      const result = await opts.store.labels.undo(m.accountId, m.moderatorId);
      if (result.kind === 'undone')
        request.log.info({ accountId: m.accountId, moderatorId: m.moderatorId, submissionId: result.submissionId }, 'review: label undone');
      return { ...result, counts: await opts.store.items.counts(m.accountId) };
    });
  };
}
