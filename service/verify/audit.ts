import type { OutcomeLabel } from './outcome.ts';

/** What the one log line per verify request says; filled as the checks go. Never the key, never the fields. */
export interface Audit {
  outcome: OutcomeLabel;
  submissionId?: string;
  accountId?: string;
  formId?: string;
  confidence?: number;
  modelVersion?: string;
  processingTime?: number;
  /** Only on invalid-key and key-guessing lines: the IP the failed-key limit counts, which on-call needs to act on. */
  clientIp?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    audit: Audit | null;
  }
}
