/** Says which part of a rejected verify body is wrong; runs only on the 400 path. */
export function describeInvalid(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  const wrong: string[] = [];
  if (typeof b.apiKey !== 'string' || b.apiKey === '') wrong.push('apiKey is missing or not a non-empty string');
  if (typeof b.formId !== 'string' || b.formId === '') wrong.push('formId is missing or not a non-empty string');
  const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (b.payload === undefined && b.fieldData === undefined) wrong.push('neither payload nor fieldData is given');
  if (b.payload !== undefined && !isObject(b.payload)) wrong.push('payload is not a JSON object');
  if (b.fieldData !== undefined && !isObject(b.fieldData)) wrong.push('fieldData is not a JSON object');
  return wrong.length > 0 ? wrong.join('; ') : 'the body does not match the schema';
}
