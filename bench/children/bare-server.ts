// The baseline: a bare Fastify POST route of the same Fastify version as the service, parsing the same JSON
// body (same 64 KiB limit) and answering a small JSON. Run as its own process by bench/entries/run.ts.
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: Number(process.env.BODY_LIMIT ?? 64 * 1024), logger: false });
app.post('/v1/verify', async (request) => ({ ok: true, fields: Object.keys(request.body as object).length }));
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ port: Number(process.env.PORT ?? 3001), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
