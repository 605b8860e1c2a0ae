import { z } from 'zod';

/** Draft-7 JSON schema from a zod schema, for Fastify's compiled validator/serializer and the OpenAPI. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return json;
}
