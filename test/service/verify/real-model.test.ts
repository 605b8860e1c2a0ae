import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadClassifier } from '../../../core/classifier/load.ts';
import type { Classifier } from '../../../core/classifier/types.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { MAX_JSON_VALUES } from '../../../service/http/json-depth.ts';
import { KEY } from '../../support/tenants.ts';
import { ORIGIN, UUID_V4, VERDICT_BODY_KEYS, testApp } from '../helpers.ts';

// Verdicts come from the trained model in models/, loaded the way server.ts loads it.
let classifier: Classifier;
let app: FastifyInstance;
beforeAll(async () => {
  classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  app = await testApp({ classifier });
});
afterAll(() => app.close());

const LEGIT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Hello, could you send me a quote for 20 oak chairs? Thanks, Ada',
};
const SPAM = {
  name: 'SEO Expert',
  email: 'seo.ranking.boost@gmail.com',
  message:
    'Boost your website to #1 on Google! Cheap backlinks, guaranteed ranking, 100% money back. Visit http://cheap-seo-backlinks.example/buy-now http://rank-fast.example CLICK HERE NOW!!!',
};

function verify(body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/v1/verify', headers: ORIGIN, payload: { apiKey: KEY, formId: 'contact', ...body } });
}

describe('verdicts from the real model', () => {
  it('answers a plain enquiry as legitimate, with the spec body', async () => {
    const res = await verify({ payload: LEGIT });
    expect(res.statusCode).toBe(200);
    const json = res.json();
    expect(Object.keys(json).sort()).toEqual(VERDICT_BODY_KEYS);
    expect(json.status).toBe('legitimate');
    expect(json.submissionId).toMatch(UUID_V4);
    expect(json.modelVersion).toBe(classifier.modelVersion);
    expect(json.reasoning.length).toBeGreaterThan(10);
    expect(json.processingTime).toBeGreaterThanOrEqual(0);
  });

  it('answers an SEO pitch full of links as spam', async () => {
    const json = (await verify({ payload: SPAM })).json();
    expect(json.status).toBe('spam');
  });

  it("returns the model's own confidence and reasoning for the verdict", async () => {
    const json = (await verify({ payload: SPAM })).json();
    const direct = classifier.classify(SPAM);
    expect(json.confidence).toBe(direct.confidence);
    expect(json.reasoning).toBe(direct.reasoning);
    expect(json.confidence).toBeGreaterThanOrEqual(0);
    expect(json.confidence).toBeLessThanOrEqual(1);
  });

  it('says plainly when nothing material drove the verdict: an empty message is no evidence of a genuine one', async () => {
    for (const payload of [
      { name: 'Anna', email: 'anna.k@gmail.com', message: '' },
      { name: 'Anna', email: 'anna.k@gmail.com' },
    ]) {
      const json = (await verify({ payload })).json();
      expect(Object.keys(json).sort()).toEqual(VERDICT_BODY_KEYS);
      expect(json.status).toBe('legitimate');
      expect(json.reasoning).toBe(`Likely legitimate (${json.confidence.toFixed(2)}): no strong signal either way.`);
    }
  });

  it('classifies fieldData too: spam sent as fieldData beside a harmless payload is caught', async () => {
    const alone = (await verify({ payload: { subject: 'Hi' } })).json();
    const both = (await verify({ payload: { subject: 'Hi' }, fieldData: SPAM })).json();
    expect(both.status).toBe('spam');
    expect(both.confidence).not.toBe(alone.confidence);
  });

  it('classifies nested dynamic-form values', async () => {
    const json = (await verify({ fieldData: { step1: { contact: { email: SPAM.email } }, answers: [{ text: SPAM.message }] } })).json();
    expect(json.status).toBe('spam');
  });
});

describe('padding a spam post with junk fields does not hide the message', () => {
  // Integer-like keys come first in a JavaScript object, whatever order the site's backend sent them in.
  const padded = (value: unknown, n = 256) => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), value]));
  let alone: { status: string; confidence: number };
  beforeAll(async () => {
    alone = (await verify({ payload: SPAM })).json();
  });

  it.each([
    ['256 empty fields before it', { ...padded(''), ...SPAM }],
    ['256 false checkboxes before it', { ...padded(false), ...SPAM }],
    ['256 short values before it', { ...padded('x'), ...SPAM }],
    ['256 empty fields in payload, the spam in fieldData', { payload: padded(''), fieldData: SPAM }],
    ['the spam nested 12 levels deep', { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: { k: SPAM } } } } } } } } } } }],
    ['a 20,000-character harmless field before it', { about: 'We are a small bakery in Leeds and love sourdough. '.repeat(400), ...SPAM }],
  ])('%s: still spam', async (_, payload) => {
    const body = 'fieldData' in payload ? payload : { payload };
    const json = (await verify(body as Record<string, unknown>)).json();
    expect(alone.status).toBe('spam');
    expect(json.status).toBe('spam');
  });

  it(`${MAX_JSON_VALUES - 3} short values before it, as wide as a body may be: still spam`, async () => {
    // That many fields need more than the default 64 KiB BODY_LIMIT.
    const wideApp = await testApp({ classifier, bodyLimit: 1024 * 1024 });
    try {
      const payload = { ...padded('x', MAX_JSON_VALUES - 3), ...SPAM };
      const res = await wideApp.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: ORIGIN,
        payload: { apiKey: KEY, formId: 'contact', payload },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('spam');
    } finally {
      await wideApp.close();
    }
  });
});
