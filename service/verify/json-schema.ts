import { toJsonSchema as toJson } from '../http/zod-json-schema.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../http/json-depth.ts';
import {
  blockedBodySchema,
  errorBodySchema,
  internalErrorBodySchema,
  rateLimitedBodySchema,
  verifyRequestSchema,
  verifyResultSchema,
} from './schema.ts';

// Generated once at import: the request path runs ajv/fast-json-stringify code compiled from these.
export const verifyRouteSchema = {
  summary: 'Classify a form submission as spam or legitimate',
  body: toJson(verifyRequestSchema),
  response: {
    200: toJson(verifyResultSchema),
    400: {
      ...toJson(errorBodySchema),
      description: `Missing or invalid parameters, malformed JSON, JSON nested more than ${MAX_JSON_DEPTH} levels deep, more than ${MAX_JSON_VALUES} values in payload and fieldData`,
    },
    401: { ...toJson(errorBodySchema), description: 'Invalid API key' },
    403: { ...toJson(blockedBodySchema), description: "Request origin not in the form's allowed referrer list" },
    404: { ...toJson(errorBodySchema), description: "Form not found or not owned by the key's account" },
    413: { ...toJson(errorBodySchema), description: 'Body larger than BODY_LIMIT' },
    415: { ...toJson(errorBodySchema), description: 'Content type other than application/json' },
    429: { ...toJson(rateLimitedBodySchema), description: 'Rate limit exceeded' },
    500: { ...toJson(internalErrorBodySchema), description: 'Internal error; the submission was not processed' },
    503: { ...toJson(internalErrorBodySchema), description: 'Not ready (model loading) or overloaded' },
  },
} as const;
