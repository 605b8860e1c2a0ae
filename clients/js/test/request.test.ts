import { afterEach, describe, expect, it } from 'vitest';
import { FormguardClient } from '../src/index.js';
import { faultServer, json, verdictBody, type FaultServer } from './fault-server.js';

let server: FaultServer | undefined;
afterEach(() => server?.close());

describe('what the client sends', () => {
  it('posts the contract’s body to <baseUrl>/v1/verify as JSON, with no Origin of its own', async () => {
    server = await faultServer((_n, res) => json(res, 200, verdictBody()));
    const client = new FormguardClient({ baseUrl: `${server.url}/`, apiKey: 'the-key' });
    await client.verify({ formId: 'contact', payload: { message: 'hi' } });
    await client.verify({ formId: 'contact', fieldData: { f1: 'x' }, payload: { message: 'hi' } });
    expect(JSON.parse(server.seen[0]?.body ?? '')).toEqual({ apiKey: 'the-key', formId: 'contact', payload: { message: 'hi' } });
    expect(JSON.parse(server.seen[1]?.body ?? '')).toEqual({
      apiKey: 'the-key',
      formId: 'contact',
      payload: { message: 'hi' },
      fieldData: { f1: 'x' },
    });
    expect(server.seen[0]?.headers['content-type']).toBe('application/json');
    expect(server.seen[0]?.headers.origin).toBeUndefined();
  });

  it('sends origin as Origin (scheme, host, port) and Referer (the page), as the service checks them', async () => {
    server = await faultServer((_n, res) => json(res, 200, verdictBody()));
    const client = new FormguardClient({ baseUrl: server.url, apiKey: 'k' });
    await client.verify({ formId: 'contact', payload: { message: 'hi' }, origin: 'https://shop.example:8443/contact?x=1' });
    expect(server.seen[0]?.headers.origin).toBe('https://shop.example:8443');
    expect(server.seen[0]?.headers.referer).toBe('https://shop.example:8443/contact?x=1');
  });

  it('keeps a path prefix of baseUrl', async () => {
    let path = '';
    server = await faultServer((_n, res) => {
      path = res.req.url ?? '';
      json(res, 200, verdictBody());
    });
    await new FormguardClient({ baseUrl: `${server.url}/formguard`, apiKey: 'k' }).verify({ formId: 'f', payload: {} });
    expect(path).toBe('/formguard/v1/verify');
  });

  it('refuses bad arguments with a TypeError instead of sending them', async () => {
    expect(() => new FormguardClient({ baseUrl: 'localhost:3000', apiKey: 'k' })).toThrow(TypeError);
    expect(() => new FormguardClient({ baseUrl: 'http://x', apiKey: '' })).toThrow(/apiKey/);
    expect(() => new FormguardClient({ baseUrl: 'http://x', apiKey: 'k', timeoutMs: -1 })).toThrow(/timeoutMs/);
    const client = new FormguardClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    // @ts-expect-error neither payload nor fieldData: the types refuse it too
    await expect(client.verify({ formId: 'contact' })).rejects.toThrow(/payload or fieldData/);
    await expect(client.verify({ formId: '', payload: {} })).rejects.toThrow(/formId/);
    await expect(client.verify({ formId: 'contact', payload: {}, origin: 'shop.example' })).rejects.toThrow(
      /origin must be an absolute URL/,
    );
  });

  it('leaves the API key out of the failure message', async () => {
    server = await faultServer((_n, res) => json(res, 401, { error: 'Invalid API key' }));
    const result = await new FormguardClient({ baseUrl: server.url, apiKey: 'secret-key-123' }).verify({
      formId: 'contact',
      payload: { message: 'hi' },
    });
    expect(result.outcome).toBe('failed-open');
    expect(JSON.stringify(result)).not.toContain('secret-key-123');
  });
});
