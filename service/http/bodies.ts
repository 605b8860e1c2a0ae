// The spec's bodies, built in this one place so every path answers in exactly these shapes.

/** Rounded to µs: enough precision for a sub-millisecond answer without float noise. */
export function ms(elapsed: number): number {
  return Math.round(elapsed * 1000) / 1000;
}

const MISSING_PARAMS = 'Missing or invalid parameters: apiKey, formId and either payload or fieldData (a JSON object) are required';

export function invalidParamsBody(detail?: string) {
  return { error: detail === undefined ? MISSING_PARAMS : `${MISSING_PARAMS} (${detail})` };
}

export function invalidKeyBody() {
  return { error: 'Invalid API key' };
}

export function formNotFoundBody(formId: string) {
  return { error: `Form "${formId.slice(0, 200)}" not found or does not belong to this account` };
}

export function blockedBody(reason: string, processingTime: number) {
  return { success: false as const, classification: 'blocked' as const, confidence: 1, reason, processingTime: ms(processingTime) };
}

export function rateLimitedBody(retryAfter: number, processingTime: number) {
  return {
    error: 'Rate limit exceeded' as const,
    retryAfter,
    message: `Too many requests; please wait ${retryAfter} second${retryAfter === 1 ? '' : 's'} before retrying`,
    processingTime: ms(processingTime),
  };
}

export function internalErrorBody(submissionId: string, processingTime: number) {
  return {
    error: 'Internal server error' as const,
    status: 'error' as const,
    confidence: 0 as const,
    submissionId,
    processingTime: ms(processingTime),
  };
}

export function plainErrorBody(error: string) {
  return { error };
}
