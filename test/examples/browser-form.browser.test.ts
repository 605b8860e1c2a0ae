import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, withPage } from '../service/review/browser.ts';
import { freePort } from '../support/free-port.ts';
import { LEGIT, SPAM, startService, type ServiceProcess } from '../support/service-process.ts';

const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/browser-form');

let dir: string;
let service: ServiceProcess;
let site: ChildProcess;
let siteExited: Promise<void>;
let base: string;
let browser: Browser;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-browser-form-'));
  // The demo tenants file: its form allows pages on localhost, any port.
  service = await startService();
  const port = await freePort();
  base = `http://localhost:${port}`;
  // The example's one command, in its own process group so the npm → tsx → node chain can be ended.
  site = spawn('npm', ['start', '--silent'], {
    cwd: exampleDir,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), FORMGUARD_URL: service.url, MAIL_DIR: dir },
    stdio: 'ignore',
    detached: true,
  });
  siteExited = new Promise((resolve) => site.on('exit', () => resolve()));
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (site?.pid !== undefined) process.kill(-site.pid, 'SIGTERM');
  await siteExited;
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function inbox(): Promise<Array<Record<string, string>>> {
  const text = await readFile(path.join(dir, 'inbox.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, string>);
}

async function fillAndSend(page: Page, post: typeof LEGIT): Promise<void> {
  await page.goto(`${base}/`);
  await page.fill('input[name="name"]', post.name);
  await page.fill('input[name="email"]', post.email);
  await page.fill('textarea[name="message"]', post.message);
  await page.click('button[type="submit"]');
}

// Runs in order: the last test stops the service.
describe('examples/browser-form in Chromium, calling the real service across origins', () => {
  it('submits a legitimate post after the service said legitimate', async () => {
    await withPage(browser, async (page) => {
      await fillAndSend(page, LEGIT);
      await page.waitForURL(`${base}/thanks`);
    });
    const [post] = await inbox();
    expect(post).toMatchObject({ email: LEGIT.email, message: LEGIT.message, formguard_outcome: 'legitimate' });
    expect(post?.formguard_submission_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('holds a spam post on the page, saying so, and sends nothing', async () => {
    await withPage(browser, async (page) => {
      await fillAndSend(page, SPAM);
      await page.locator('#verdict[data-outcome="spam"]').waitFor();
      expect(await page.textContent('#verdict')).toMatch(/^Not sent: this message looks like spam \(confidence [01]\.\d\d\)/);
      expect(page.url()).toBe(`${base}/`);
      expect(await page.isEnabled('button[type="submit"]')).toBe(true);
    });
    expect((await inbox()).map((p) => p.email)).toEqual([LEGIT.email]);
  });

  it('submits the post when the service has stopped (fails open)', async () => {
    await service.stop();
    await withPage(browser, async (page) => {
      await fillAndSend(page, SPAM);
      await page.waitForURL(`${base}/thanks`);
    });
    const posts = await inbox();
    expect(posts).toHaveLength(2);
    expect(posts[1]).toMatchObject({ email: SPAM.email, formguard_outcome: 'failed-open', formguard_submission_id: '' });
  });
});
