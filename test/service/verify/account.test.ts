import { describe, expect, it } from 'vitest';
import type { FormFields } from '../../../core/features/form-fields.ts';
import type { Classifier, Verdict } from '../../../core/classifier/types.ts';
import { KEY, OTHER_KEY } from '../../support/tenants.ts';
import { ORIGIN, testApp } from '../helpers.ts';

/** Records which account each classify call was made for (routing only: verdict tests use the real model). */
function recordingClassifier(): Classifier & { accounts: (string | undefined)[] } {
  const accounts: (string | undefined)[] = [];
  return {
    modelVersion: 'stub-1',
    featureVersion: 'stub',
    accounts,
    classify(_fields: FormFields, accountId?: string): Verdict {
      accounts.push(accountId);
      return { status: 'legitimate', spamProbability: 0.1, confidence: 0.9, signals: [], reasoning: 'stub', modelVersion: 'stub-1' };
    },
    score(fields: FormFields, accountId?: string) {
      return this.classify(fields, accountId);
    },
  };
}

describe('POST /v1/verify and per-account corrections', () => {
  it("classifies for the account the API key belongs to, so only that account's correction applies", async () => {
    const classifier = recordingClassifier();
    const app = await testApp({ classifier });
    try {
      const payload = { message: 'Hello' };
      expect(
        (await app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: { apiKey: KEY, formId: 'contact', payload } }))
          .statusCode,
      ).toBe(200);
      const other = await app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: { origin: 'https://globex.test' },
        payload: { apiKey: OTHER_KEY, formId: 'globex-form', payload },
      });
      expect(other.statusCode).toBe(200);
      expect(classifier.accounts).toEqual(['acme', 'globex']);
    } finally {
      await app.close();
    }
  });
});
