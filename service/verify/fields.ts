import type { FormFields } from '../../core/features/form-fields.ts';
import type { VerifyRequest } from './schema.ts';

/**
 * What the classifier sees. With both objects, nesting them keeps every field and its key name (the feature
 * extractor reads leaf keys for field roles), so colliding keys need no renaming.
 */
export function fieldsOf(body: VerifyRequest): FormFields {
  if (body.payload !== undefined && body.fieldData !== undefined) return { payload: body.payload, fieldData: body.fieldData };
  return (body.payload ?? body.fieldData) as FormFields;
}
