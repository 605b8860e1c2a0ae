import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewApp, type ReviewAppFixture } from '../app-fixture.ts';

let f: ReviewAppFixture;

beforeAll(async () => {
  f = await reviewApp();
});
afterAll(async () => {
  await f.close();
});

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: unknown }> }; parameters?: { name: string; in: string }[] }>
  >;
}

describe('the OpenAPI document with the review console on', () => {
  it('lists the verify route and the console API, and hides the console page, its assets and the health checks', () => {
    const doc = f.app.swagger() as unknown as OpenApiDoc;
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/review/api/items/{id}',
        '/review/api/items/{id}/label',
        '/review/api/me',
        '/review/api/session',
        '/review/api/sign-out',
        '/review/api/undo',
        '/review/api/list',
        '/review/api/bulk/label',
        '/review/api/bulk/confirm',
        '/review/api/items/{id}/report',
        '/review/api/dashboard',
        '/review/api/history',
        '/review/api/items/{id}/unlabel',
        '/review/api/lists',
        '/review/api/lists/remove',
        '/review/api/items/{id}/lists',
        '/v1/verify',
      ].sort(),
    );
  });

  it('describes the console API from its zod schemas: the label body, the id parameter, the list filter', () => {
    const doc = f.app.swagger() as unknown as OpenApiDoc;
    const label = doc.paths['/review/api/items/{id}/label']?.post;
    expect(label?.requestBody?.content['application/json']?.schema).toMatchObject({
      properties: { label: { enum: ['spam', 'legitimate'] } },
      required: ['label'],
    });
    expect(label?.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path' })]);
    const search = doc.paths['/review/api/list']?.get;
    expect(search?.parameters?.map((p) => p.name).sort()).toEqual(['form', 'from', 'limit', 'offset', 'q', 'sort', 'status', 'to']);
    expect(doc.paths['/review/api/bulk/label']?.post?.requestBody?.content['application/json']?.schema).toMatchObject({
      required: ['ids', 'label'],
    });
    // What the history page reads is described: its rows and how each label was given.
    const history = doc.paths['/review/api/history']?.get as unknown as {
      responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
    };
    const answer = history.responses['200']?.content['application/json']?.schema;
    expect(Object.keys(answer?.properties ?? {}).sort()).toEqual(['moderators', 'rows', 'scanCapped', 'total']);
    expect(JSON.stringify(answer)).toContain('"single","bulk","reported"');
  });
});

describe('the OpenAPI document describes what the page reads', () => {
  it('gives the list answer its rows, totals and counts', () => {
    const doc = f.app.swagger() as unknown as {
      paths: Record<
        string,
        { get?: { responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }> } }
      >;
    };
    const answer = doc.paths['/review/api/list']?.get?.responses['200']?.content['application/json']?.schema;
    expect(Object.keys(answer?.properties ?? {}).sort()).toEqual(['counts', 'limit', 'offset', 'rows', 'scanCapped', 'summary', 'total']);
    expect(JSON.stringify(answer?.properties.rows)).toContain('"campaign"');
  });

  it('gives the moderator, the item and the dashboard answers their schemas', () => {
    const doc = f.app.swagger() as unknown as {
      paths: Record<
        string,
        { get?: { responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }> } }
      >;
    };
    const answer = (path: string) => doc.paths[path]?.get?.responses['200']?.content['application/json']?.schema;
    expect(Object.keys(answer('/review/api/me')?.properties ?? {}).sort()).toEqual([
      'accountId',
      'counts',
      'forms',
      'keepFieldsDays',
      'moderatorId',
    ]);
    const item = answer('/review/api/items/{id}');
    expect(Object.keys(item?.properties ?? {}).sort()).toEqual([
      'email',
      'fieldsKept',
      'group',
      'item',
      'keepFieldsDays',
      'label',
      'message',
      'queued',
    ]);
    expect(JSON.stringify(item?.properties.group)).toContain('similar submissions');
    const dashboard = answer('/review/api/dashboard');
    expect(Object.keys(dashboard?.properties ?? {}).sort()).toEqual([
      'allForms',
      'band',
      'days',
      'forms',
      'from',
      'histogram',
      'labelsCut',
      'sampleRate',
      'to',
      'total',
    ]);
    expect(JSON.stringify(dashboard?.properties.total)).toContain('precisionLeftOut');
  });
});
