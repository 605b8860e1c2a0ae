import { buildContactApp } from './app.ts';
import { fileMailbox } from './mailbox.ts';

// Defaults fit formguard's quick start (`npm start` at the repository root: the demo tenants file).
const env = process.env;
const port = Number(env.PORT ?? 8080);
const app = buildContactApp({
  formguardUrl: env.FORMGUARD_URL ?? 'http://127.0.0.1:3000',
  apiKey: env.FORMGUARD_API_KEY ?? 'demo-key-change-me',
  formId: env.FORMGUARD_FORM_ID ?? 'contact',
  pageUrl: env.PAGE_URL ?? `http://localhost:${port}/`,
  mailbox: fileMailbox(env.MAIL_DIR ?? 'mail'),
  logger: true,
});
await app.listen({ port, host: env.HOST ?? '127.0.0.1' });
