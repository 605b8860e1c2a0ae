/** Form fields as the caller sent them: any JSON object, values possibly nested. */
export type FormFields = Record<string, unknown>;
