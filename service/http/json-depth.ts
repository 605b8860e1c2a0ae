/**
 * How deep a JSON body may nest: the body object is level 1, `payload` and `fieldData` level 2. The feature
 * extractor reads 32 levels below the object it is given and the review queue keeps 32 levels of each field, so
 * nothing in a body this deep or shallower is left unread for its depth (test/service/http/json-depth.test.ts).
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether a JSON text nests deeper than `limit`, found before JSON.parse: V8 parses deep nesting slowly (a 16 MiB
 * body of `[[[...` took 4 s, all in JSON.parse), so the depth is read first, in one pass that stops at `limit + 1`
 * and jumps over strings with indexOf. Text that is not JSON gets an answer too; JSON.parse judges it afterwards.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes the string opened at `open` (one not escaped by a backslash), or -1. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
