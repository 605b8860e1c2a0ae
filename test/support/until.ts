/** Polls until check() is true (no fixed sleeps: the condition decides); throws naming `what` after `limitMs`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, limitMs = 30_000, everyMs = 25): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
