import Fastify, { type FastifyInstance } from 'fastify';
// In your project: import { FormguardClient } from '@formguard/client';
import { FormguardClient } from '../../clients/js/src/index.js';
import type { ContactPost, Mailbox } from './mailbox.ts';

export interface ContactAppOptions {
  /** The formguard service, e.g. http://127.0.0.1:3000. */
  readonly formguardUrl: string;
  /** Kept on the server (an environment variable), never sent to the visitor's browser. */
  readonly apiKey: string;
  readonly formId: string;
  /** The page of this site where visitors fill in the form: sent as `origin`, which the form's list must allow. */
  readonly pageUrl: string;
  readonly mailbox: Mailbox;
  readonly logger?: boolean;
}

const FORM = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Contact us</title></head>
<body>
<h1>Contact us</h1>
<form method="post" action="/contact">
  <p><label>Name <input name="name" required></label></p>
  <p><label>E-mail <input name="email" type="email" required></label></p>
  <p><label>Message <textarea name="message" rows="6" cols="50" required></textarea></label></p>
  <p><button type="submit">Send</button></p>
</form>
</body></html>
`;

const THANKS = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thank you</title></head>
<body><h1>Thank you</h1><p>We got your message and will answer soon.</p></body></html>
`;

function field(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v.slice(0, 10_000) : '';
}

/** The contact form's backend: every post is verified; spam is held for review, the rest is delivered. */
export function buildContactApp(options: ContactAppOptions): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false });
  const formguard = new FormguardClient({
    baseUrl: options.formguardUrl,
    apiKey: options.apiKey,
    // Say when the service gave no verdict (the post still goes through); never log the post itself.
    onFailure: (f) =>
      app.log.warn(
        { reason: f.reason, status: f.status, submissionId: f.submissionId, attempts: f.attempts },
        'formguard gave no verdict; the post was let through',
      ),
  });

  // A browser posts the form URL-encoded; Fastify reads JSON only unless told.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(FORM));
  app.get('/thanks', async (_req, reply) => reply.type('text/html; charset=utf-8').send(THANKS));

  app.post('/contact', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const post: ContactPost = { name: field(body, 'name'), email: field(body, 'email'), message: field(body, 'message') };
    const result = await formguard.verify({ formId: options.formId, payload: { ...post }, origin: options.pageUrl });
    const note =
      result.outcome === 'failed-open'
        ? { outcome: result.outcome, reason: result.reason, submissionId: result.submissionId }
        : { outcome: result.outcome, ...('submissionId' in result ? { submissionId: result.submissionId } : {}) };
    if (result.allow) {
      await options.mailbox.deliver(post, note);
    } else {
      // Spam, or blocked (this backend's pageUrl is not on the form's list: fix the tenants file). Held, not lost.
      if (result.outcome === 'blocked')
        req.log.error({ reason: result.reason }, 'formguard blocked this backend: add its page to the form’s allowed referrers');
      await options.mailbox.hold(post, note);
    }
    // The same answer either way: a spammer learns nothing from it.
    return reply.redirect('/thanks', 303);
  });
  return app;
}
