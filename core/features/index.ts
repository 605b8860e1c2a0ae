export { FeatureExtractor, STRUCTURE_FIELD, type Features } from './extract.ts';
export { surfaceOf, surfaceSpan, surfaceText, type Span } from './describe.ts';
export { KIND, type Kind } from './kinds.ts';
export { describeStructure, isEvidence } from './structure.ts';
export { DEFAULT_FEATURE_SETTINGS, BASELINE_FEATURE_SETTINGS, featureVersion, type FeatureSettings } from './settings.ts';
export type { FieldRole } from './roles.ts';
export type { FormFields } from './form-fields.ts';
