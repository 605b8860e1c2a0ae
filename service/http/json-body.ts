import createError from '@fastify/error';
import { errorCodes, type FastifyInstance } from 'fastify';
import { exceedsJsonLimits, MAX_JSON_DEPTH, MAX_JSON_VALUES } from './json-depth.ts';

/** A body that is valid JSON but has a `__proto__` or `constructor.prototype` key (refused by onProtoPoisoning). */
export const FG_ERR_FORBIDDEN_JSON_KEY = createError('FG_ERR_FORBIDDEN_JSON_KEY', 'The JSON body has a forbidden key', 400);

/** A body nested deeper than MAX_JSON_DEPTH, refused before it is parsed. */
export const FG_ERR_JSON_TOO_DEEP = createError('FG_ERR_JSON_TOO_DEEP', 'The JSON body is nested too deep', 400);

/** A body holding more than MAX_JSON_VALUES values, refused before it is parsed. */
export const FG_ERR_JSON_TOO_WIDE = createError('FG_ERR_JSON_TOO_WIDE', 'The JSON body holds too many values', 400);

// charset=<token> or charset="<quoted>", as RFC 9110 writes a media-type parameter.
const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** UTF-8 is JSON's encoding (RFC 8259); Fastify decodes every body as UTF-8 whatever charset it declares. */
function declaresOtherCharset(contentType: string | undefined): boolean {
  const m = contentType === undefined ? null : CHARSET.exec(contentType);
  if (m === null) return false;
  const charset = (m[1] ?? m[2] ?? '').toLowerCase();
  // "utf8" is not the registered name, but it is UTF-8: decoding it as such mangles nothing.
  return charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * Replaces the application/json parser with Fastify's own (same limits and prototype-poisoning checks) plus the
 * answers it cannot give: a 415 for a non-UTF-8 charset, a 400 for nesting deeper than MAX_JSON_DEPTH or holding
 * more than MAX_JSON_VALUES values (both checked in one pass before parsing), and a forbidden-key 400 instead of
 * "not valid JSON".
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error') as (
    request: unknown,
    body: string,
    done: (err: Error | null, value?: unknown) => void,
  ) => void;
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (declaresOtherCharset(request.headers['content-type'])) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
      return;
    }
    // Before parsing: the parse itself is the slow part of a deeply nested body, and half of a wide one's cost.
    const exceeded = exceedsJsonLimits(body as string, MAX_JSON_DEPTH, MAX_JSON_VALUES);
    if (exceeded !== undefined) {
      done(exceeded === 'depth' ? new FG_ERR_JSON_TOO_DEEP() : new FG_ERR_JSON_TOO_WIDE(), undefined);
      return;
    }
    parse(request, body as string, (err, value) => {
      // Only on the failure path: JSON that plain JSON.parse accepts was refused for a forbidden key.
      if (err !== null && (err as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body as string)) {
        done(new FG_ERR_FORBIDDEN_JSON_KEY(), undefined);
      } else done(err, value);
    });
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
