import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadClassifier } from '../../../core/classifier/load.ts';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { ListsCache } from '../../../service/review/lists/cache.ts';
import { ORIGIN, VERDICT_BODY_KEYS, testApp } from '../helpers.ts';
import { KEY } from '../../support/tenants.ts';

// The account's lists decide after the real model (its extractor reads the sender and the links), through the route.
const lists = new ListsCache();
let app: FastifyInstance;
beforeAll(async () => {
  const classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  app = await testApp({ classifier, accountLists: lists });
});
afterAll(() => app.close());

const ENQUIRY = {
  name: 'Ada Lovelace',
  email: 'Ada@Example.com ',
  message: 'Hello, could you send me a quote for 20 oak chairs? Our catalogue is at https://www.oak-shop.example.co.uk/chairs. Thanks, Ada',
};
const SPAM = {
  name: 'SEO Expert',
  email: 'seo.ranking.boost@gmail.com',
  message:
    'Boost your website to #1 on Google! Cheap backlinks, guaranteed ranking. Visit http://cheap-seo-backlinks.example/buy-now CLICK HERE NOW!!!',
};

async function verify(payload: Record<string, unknown>) {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: ORIGIN,
    payload: { apiKey: KEY, formId: 'contact', payload },
  });
  expect(res.statusCode).toBe(200);
  const json = res.json<{ status: string; confidence: number; reasoning: string; modelVersion: string }>();
  // The spec's shape, nothing added for a list decision.
  expect(Object.keys(json).sort()).toEqual(VERDICT_BODY_KEYS);
  return json;
}

describe("an account's allow and block lists in verify", () => {
  it('leaves the model to decide without entries, and for another account', async () => {
    lists.replace('globex', ['block sender ada@example.com']);
    const v = await verify(ENQUIRY);
    expect(v.status).toBe('legitimate');
    expect(v.reasoning).not.toMatch(/list/);
  });

  it('answers spam for a blocked sender, matched however the field is cased or padded, with a true reasoning', async () => {
    lists.replace('acme', ['block sender ada@example.com']);
    const v = await verify(ENQUIRY);
    expect(v.status).toBe('spam');
    expect(v.confidence).toBe(1);
    expect(v.reasoning).toMatch(/^Spam: the sender is on your block list \(the model alone said legitimate, spam score 0\.\d\d\)\.$/);
  });

  it('answers spam for a link to a blocked domain, a subdomain included, naming the host', async () => {
    lists.replace('acme', ['block link-domain oak-shop.example.co.uk']);
    expect((await verify(ENQUIRY)).reasoning).toMatch(/^Spam: links to oak-shop\.example\.co\.uk, which is on your block list/);
    lists.replace('acme', ['block link-domain example.co.uk']);
    expect((await verify(ENQUIRY)).reasoning).toMatch(
      /links to oak-shop\.example\.co\.uk, under example\.co\.uk, which is on your block list/,
    );
    // co.uk is a suffix, nobody's domain: an entry for it covers no link.
    lists.replace('acme', ['block link-domain co.uk']);
    expect((await verify(ENQUIRY)).status).toBe('legitimate');
  });

  it('matches an e-mail domain by the address domain or its registrable domain', async () => {
    lists.replace('acme', ['block email-domain example.com']);
    const v = await verify({ ...ENQUIRY, email: 'ada@mail.example.com' });
    expect(v.status).toBe('spam');
    expect(v.reasoning).toMatch(/the sender's e-mail domain mail\.example\.com is under example\.com, which is on your block list/);
  });

  it('answers legitimate for an allowed sender the model calls spam', async () => {
    lists.replace('acme', ['allow sender seo.ranking.boost@gmail.com']);
    const v = await verify(SPAM);
    expect(v.status).toBe('legitimate');
    expect(v.confidence).toBe(1);
    expect(v.reasoning).toMatch(
      /^Legitimate: the sender is on your allow list \(the model alone said spam, spam score (0\.\d\d|> 0\.99)\)\.$/,
    );
  });

  it('lets the block list win when both lists match', async () => {
    lists.replace('acme', ['allow sender seo.ranking.boost@gmail.com', 'block link-domain cheap-seo-backlinks.example']);
    const v = await verify(SPAM);
    expect(v.status).toBe('spam');
    expect(v.reasoning).toMatch(/links to cheap-seo-backlinks\.example, which is on your block list/);
  });

  it('finds an entry among 10,000 as among one', async () => {
    const many = Array.from({ length: 9_999 }, (_, i) => `block sender someone-${i}@example.net`);
    lists.replace('acme', [...many, 'block sender ada@example.com']);
    expect(lists.size('acme')).toBe(10_000);
    expect((await verify(ENQUIRY)).status).toBe('spam');
    lists.replace('acme', many);
    expect((await verify(ENQUIRY)).status).toBe('legitimate');
  });
});
