import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { buildApp, type AppDeps } from '../../service/app.ts';
import type { FormFields } from '../../core/features/form-fields.ts';
import type { Classifier, Verdict } from '../../core/classifier/types.ts';
import { loggerOptions } from '../../service/config/logger.ts';
import { parseTenants } from '../../service/tenants/load.ts';
import type { TenantsFile } from '../../service/tenants/schema.ts';
import { KEY, tenantsFile } from '../support/tenants.ts';

/** The keys of a verify verdict body (sorted): the spec's fields plus formId and modelVersion. */
export const VERDICT_BODY_KEYS = ['confidence', 'formId', 'modelVersion', 'processingTime', 'reasoning', 'status', 'submissionId'];

export function tenants(file: TenantsFile = tenantsFile()) {
  return { current: parseTenants(JSON.stringify(file), 'test') };
}

/**
 * Test double for routing and error-path tests only (never shipped): answers a fixed verdict, or throws.
 * Verdict tests use the real model (see real-model.ts).
 */
export function stubClassifier(behaviour: 'legitimate' | 'throw' = 'legitimate'): Classifier & { calls: FormFields[] } {
  const calls: FormFields[] = [];
  return {
    modelVersion: 'stub-1',
    featureVersion: 'stub',
    calls,
    classify(fields: FormFields): Verdict {
      calls.push(fields);
      if (behaviour === 'throw') throw new Error('classifier exploded');
      return { status: 'legitimate', spamProbability: 0.1, confidence: 0.9, signals: [], reasoning: 'stub', modelVersion: 'stub-1' };
    },
    score(fields: FormFields, accountId?: string) {
      return this.classify(fields, accountId);
    },
  };
}

/** A pino logger writing into an array of parsed lines, with the service's redaction. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>>; text: () => string } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      cb();
    },
  });
  const logger = pino(loggerOptions('info'), stream);
  return {
    logger,
    get lines() {
      return raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    text: () => raw.join('\n'),
  };
}

export async function testApp(deps: Partial<AppDeps> = {}) {
  return buildApp({ tenants: tenants(), classifier: stubClassifier(), maxEventLoopDelayMs: 0, ...deps });
}

export const ORIGIN = { origin: 'https://example.com' };

export function verifyBody(extra: Record<string, unknown> = {}) {
  return {
    apiKey: KEY,
    formId: 'contact',
    payload: { name: 'Ada', email: 'ada@example.com', message: 'Hello, I would like a quote.' },
    ...extra,
  };
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
