import { z } from 'zod';

/** Any JSON object (not an array, not null); values may nest. */
const formFields = z.record(z.string(), z.unknown()).describe('Form fields as submitted; values may be nested objects and arrays');

const base = {
  apiKey: z.string().min(1).describe("API key of the caller's account"),
  formId: z.string().min(1).describe("Identifier of the form; it must belong to the key's account"),
};

// A union rather than a refinement, so the JSON schema (and the OpenAPI) can state "one of the two".
export const verifyRequestSchema = z
  .union([
    z.object({ ...base, payload: formFields, fieldData: formFields.optional() }),
    z.object({ ...base, payload: formFields.optional(), fieldData: formFields }),
  ])
  .describe('Verify request: apiKey, formId and either payload or fieldData (both are classified when both come)');

export type VerifyRequest = z.infer<typeof verifyRequestSchema>;

export const verifyResultSchema = z.object({
  status: z.enum(['spam', 'legitimate']),
  confidence: z.number().min(0).max(1).describe('Calibrated probability that status is right'),
  reasoning: z.string(),
  submissionId: z.string().uuid(),
  processingTime: z.number().describe('Milliseconds, measured inside the service'),
  formId: z.string(),
  modelVersion: z.string().optional(),
});

export const errorBodySchema = z.object({ error: z.string() });

export const blockedBodySchema = z.object({
  success: z.literal(false),
  classification: z.literal('blocked'),
  confidence: z.literal(1),
  reason: z.string(),
  processingTime: z.number(),
});

export const rateLimitedBodySchema = z.object({
  error: z.literal('Rate limit exceeded'),
  retryAfter: z.number().int().min(1).describe('Seconds to wait; also sent as the Retry-After header'),
  message: z.string(),
  processingTime: z.number(),
});

export const internalErrorBodySchema = z.object({
  error: z.literal('Internal server error').describe("The spec's text, on 500 and 503 alike"),
  status: z.literal('error'),
  confidence: z.literal(0),
  submissionId: z.string().uuid().describe('Store it for support; the service logs it with the error'),
  processingTime: z.number(),
});
