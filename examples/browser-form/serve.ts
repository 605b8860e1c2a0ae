import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Serves this folder's static form on http://localhost:8080 (an origin the demo tenants file allows), the client
// library as one ES module, and a stand-in for the form's real target (POST /contact appends to mail/inbox.jsonl).
const here = path.dirname(fileURLToPath(import.meta.url));
const env = process.env;
const port = Number(env.PORT ?? 8080);
const serviceUrl = env.FORMGUARD_URL ?? 'http://127.0.0.1:3000';
const mailDir = path.resolve(env.MAIL_DIR ?? path.join(here, 'mail'));

const bundle = await build({
  entryPoints: [path.join(here, '../../clients/js/src/index.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  write: false,
  logLevel: 'warning',
});
const files: Record<string, { type: string; body: string }> = {
  '/': {
    type: 'text/html; charset=utf-8',
    body: (await readFile(path.join(here, 'index.html'), 'utf8')).replace(
      'data-formguard-url="http://127.0.0.1:3000"',
      `data-formguard-url="${serviceUrl}"`,
    ),
  },
  '/form.js': { type: 'text/javascript; charset=utf-8', body: await readFile(path.join(here, 'form.js'), 'utf8') },
  '/formguard-client.js': { type: 'text/javascript; charset=utf-8', body: bundle.outputFiles[0]?.text ?? '' },
  '/thanks': {
    type: 'text/html; charset=utf-8',
    body: '<!doctype html><meta charset="utf-8"><title>Thank you</title><h1>Thank you</h1><p>We got your message.</p>',
  },
};

const server = createServer((req, res) => {
  const url = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method === 'POST' && url === '/contact') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      void (async () => {
        await mkdir(mailDir, { recursive: true });
        await appendFile(
          path.join(mailDir, 'inbox.jsonl'),
          `${JSON.stringify({ receivedAt: new Date().toISOString(), ...Object.fromEntries(new URLSearchParams(body)) })}\n`,
        );
        res.writeHead(303, { location: '/thanks' }).end();
      })();
    });
    return;
  }
  const file = req.method === 'GET' ? files[url] : undefined;
  if (file === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
});
server.listen(port, env.HOST ?? 'localhost', () => console.log(`browser form on http://localhost:${port}/ (formguard at ${serviceUrl})`));
