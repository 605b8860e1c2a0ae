/** Strict: scripts and styles only from this origin, as files; nothing inline, no frames, no plugins. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Every answer under /review carries these, errors the router answers before the console's routes included. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
});

/** The console's mount point; the app registers its routes under it. */
export const CONSOLE_PREFIX = '/review';

export function isConsolePath(url: string): boolean {
  return url === CONSOLE_PREFIX || url.startsWith(`${CONSOLE_PREFIX}/`) || url.startsWith(`${CONSOLE_PREFIX}?`);
}
