/**
 * How deep a JSON body may nest: the body object is level 1, `payload` and `fieldData` level 2. The feature
 * extractor reads 32 levels below the object it is given and the review queue keeps 32 levels of each field, so
 * nothing in a body this deep or shallower is left unread for its depth (test/service/http/json-depth.test.ts).
 */
export const MAX_JSON_DEPTH = 32;

/**
 * How many values `payload` and `fieldData` may hold together: every string, number, boolean, null, array and
 * object inside them, at any depth (a field holding a string is one value, one holding `["a","b"]` three). Real
 * forms send tens, the widest form builders' layouts a few hundred (`[{name, value}]` lists cost three values a
 * field); the feature extractor reads at most 256 fields. A body this wide costs a few ms to parse, classify and
 * answer; 1.1 million small fields (16 MiB) held the event loop ~4 s.
 */
export const MAX_JSON_VALUES = 10_000;

/**
 * Top-level members that cost nothing against MAX_JSON_VALUES: apiKey, formId, payload and fieldData. Members past
 * these four (ignored fields, which JSON.parse must still build) count one each, so a body wide at its top level
 * is refused too, while a usual body's four members never take from payload's share.
 */
const FREE_TOP_LEVEL_MEMBERS = 4;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Which bound a JSON text is past, if any: its nesting depth or its number of values. */
export type JsonLimitExceeded = 'depth' | 'values' | undefined;

/**
 * Whether a JSON text nests deeper than `maxDepth` or holds more than `maxValues` values (counted as
 * MAX_JSON_VALUES says), found before JSON.parse: V8 parses deep nesting slowly (a 16 MiB body of `[[[...` took
 * 4 s, all in JSON.parse) and wide bodies no faster (a million fields: 1.4 s to parse, 1.7 s to classify). One
 * pass jumps over strings with indexOf and stops at the first bound crossed. Values are counted without parsing:
 * a container at level 2 or deeper holds one value more than it has commas (none when empty), and commas outside
 * strings are only ever separators, so the count is exact for valid JSON. Text that is not JSON gets an answer
 * too; JSON.parse judges it afterwards.
 */
export function exceedsJsonLimits(text: string, maxDepth: number, maxValues: number): JsonLimitExceeded {
  let depth = 0;
  let values = 0;
  let topLevelCommas = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return undefined;
    } else if (c === COMMA) {
      if (depth >= 2 || ++topLevelCommas >= FREE_TOP_LEVEL_MEMBERS) {
        if (++values > maxValues) return 'values';
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'depth';
      if (depth >= 2 && !closesAtOnce(text, i + 1, c + 2) && ++values > maxValues) return 'values';
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

/** Whether the next character after `from` that is not JSON whitespace is `close` (an empty array or object). */
function closesAtOnce(text: string, from: number, close: number): boolean {
  let i = from;
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return c === close;
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
