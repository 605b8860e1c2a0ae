import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, headless. Fails loudly when it is missing: CI installs it (apt-get install chromium). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with "apt-get update && apt-get install -y chromium" (never "npx playwright install").`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Runs `fn` on a page of a fresh browser context (cookies of its own), and closes the context whatever happens. */
export async function withPage<T>(browser: Browser, fn: (page: Page) => Promise<T>): Promise<T>;
export async function withPage<T>(browser: Browser, options: BrowserContextOptions, fn: (page: Page) => Promise<T>): Promise<T>;
export async function withPage<T>(
  browser: Browser,
  ...args: [fn: (page: Page) => Promise<T>] | [options: BrowserContextOptions, fn: (page: Page) => Promise<T>]
): Promise<T> {
  const [options, fn] = args.length === 1 ? [{}, args[0]] : args;
  const context = await browser.newContext(options);
  try {
    return await fn(await context.newPage());
  } finally {
    await context.close();
  }
}

/**
 * Opens the console at `base` and signs in as a moderator would: the token in its field, then Enter.
 * Resolves once `ready` shows, by default the first item of the list.
 */
export async function signInToConsole(
  page: Page,
  base: string,
  token: string,
  ready: Locator = page.locator('#list li[data-id]').first(),
): Promise<void> {
  await page.goto(`${base}/review`);
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
  await ready.waitFor();
}
