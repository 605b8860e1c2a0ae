import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContactApp } from '../../examples/express-backend/app.ts';
import { fileMailbox } from '../../examples/express-backend/mailbox.ts';
import { freePort } from '../support/free-port.ts';
import { LEGIT, SPAM, startService, type ServiceProcess } from '../support/service-process.ts';

const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/express-backend');

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-backend-example-'));
  // The demo tenants file: key demo-key-change-me, form contact, pages on localhost allowed.
  service = await startService();
});
afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function lines(file: string): Promise<Array<{ outcome: string; reason?: string; submissionId?: string; post: typeof LEGIT }>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { outcome: string; post: typeof LEGIT });
}

function app(formguardUrl: string, mailDir: string) {
  return buildContactApp({
    formguardUrl,
    apiKey: 'demo-key-change-me',
    formId: 'contact',
    pageUrl: 'http://localhost:8080/',
    mailbox: fileMailbox(mailDir),
  });
}

function postForm(a: ReturnType<typeof app>, post: typeof LEGIT) {
  return a.inject({
    method: 'POST',
    url: '/contact',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(post).toString(),
  });
}

describe('examples/express-backend: a contact-form backend using @formguard/client', () => {
  it('delivers a legitimate post and holds a spam one, answering both alike', async () => {
    const mail = path.join(dir, 'both');
    const a = app(service.url, mail);
    const legit = await postForm(a, LEGIT);
    const spam = await postForm(a, SPAM);
    for (const res of [legit, spam]) {
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/thanks');
    }
    const inbox = await lines(path.join(mail, 'inbox.jsonl'));
    const held = await lines(path.join(mail, 'held.jsonl'));
    expect(inbox.map((l) => [l.outcome, l.post.email])).toEqual([['legitimate', LEGIT.email]]);
    expect(held.map((l) => [l.outcome, l.post.email])).toEqual([['spam', SPAM.email]]);
    expect(held[0]?.submissionId).toMatch(/^[0-9a-f-]{36}$/);
    await a.close();
  });

  it('lets posts through while the service is down, noting why', async () => {
    const own = await startService();
    await own.stop();
    const mail = path.join(dir, 'down');
    const a = app(own.url, mail);
    const res = await postForm(a, LEGIT);
    expect(res.statusCode).toBe(303);
    expect((await lines(path.join(mail, 'inbox.jsonl'))).map((l) => [l.outcome, l.reason])).toEqual([['failed-open', 'unreachable']]);
    expect(await lines(path.join(mail, 'held.jsonl'))).toEqual([]);
    await a.close();
  });

  it('runs with `npm start` from its folder: serves the form and verifies a browser-style post', async () => {
    const port = await freePort();
    const mail = path.join(dir, 'npm-start');
    // Its own process group, so the whole npm → tsx → node chain can be ended.
    const child = spawn('npm', ['start', '--silent'], {
      cwd: exampleDir,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), FORMGUARD_URL: service.url, MAIL_DIR: mail },
      stdio: 'ignore',
      detached: true,
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      let page: Response | undefined;
      for (let i = 0; i < 300 && page === undefined; i++) {
        page = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
        if (page === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(await page?.text()).toContain('<form method="post" action="/contact">');
      const res = await fetch(`http://127.0.0.1:${port}/contact`, { method: 'POST', body: new URLSearchParams(LEGIT), redirect: 'manual' });
      expect(res.status).toBe(303);
      expect((await lines(path.join(mail, 'inbox.jsonl'))).map((l) => l.outcome)).toEqual(['legitimate']);
    } finally {
      process.kill(-(child.pid ?? 0), 'SIGTERM');
      await exited;
    }
  });
});
