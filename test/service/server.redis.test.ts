import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { freePort } from '../support/free-port.ts';
import { deleteKeys, missingDatabaseUrl, REDIS_URL, testPrefix } from '../support/redis.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-server-'));
  // What `npm start` runs: its prestart bundles service/server.ts into dist/.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function start(env: Record<string, string>): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; stderr: string; stdout: string }>;
} {
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist/server.js')], {
    cwd: repoRoot,
    // ADMIN_PORT 0 (a free port) unless a test names one: the default, 9464, may be taken on a developer's machine.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ADMIN_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr, stdout })),
  );
  return { child, exited };
}

async function waitReady(port: number, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  for (let i = 0; i < 300 && !done; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

describe('npm start (dist/server.js, bundled from service/server.ts)', () => {
  it('refuses to start in production without TENANTS_FILE, naming the variable', async () => {
    const { exited } = start({ NODE_ENV: 'production', PORT: String(await freePort()) });
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/TENANTS_FILE: required when NODE_ENV=production/);
  });

  it('stops on a bad variable, naming it', async () => {
    const { exited } = start({ PORT: 'not-a-port' });
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/PORT/);
  });

  it('stops on a bad tenants file, naming the place', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ accounts: [{ id: 'a', apiKeys: [{ id: 'k', sha256: 'xyz' }], forms: [] }] }));
    const { exited } = start({ TENANTS_FILE: file, PORT: String(await freePort()) });
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/accounts\[0\]\.apiKeys\[0\]\.sha256/);
  });

  it('stops when the Redis server refuses the database REDIS_URL names, in one line naming it', async () => {
    // ioredis went on to database 0 after the refused SELECT: /readyz said Redis was up, and limits and review jobs
    // landed in another database than the one configured.
    const { url, db } = await missingDatabaseUrl();
    const prefix = testPrefix('server-db');
    const port = await freePort();
    const { child, exited } = start({
      PORT: String(port),
      REDIS_URL: url,
      BULLMQ_PREFIX: prefix,
      RATE_LIMIT_PREFIX: `${prefix}:rl`,
      REVIEW_SPOOL_DIR: path.join(dir, 'spool-db'),
    });
    const redis = new Redis(REDIS_URL);
    try {
      const outcome = await Promise.race([
        exited,
        waitReady(port, exited).then(
          () => 'ready' as const,
          () => 'not ready' as const,
        ),
      ]);
      expect(outcome).not.toBe('ready');
      const { code, stderr } = await exited;
      expect(code).toBe(1);
      expect(stderr).toBe(
        `formguard: REDIS_URL names database ${db}, which the Redis server at ${new URL(REDIS_URL).host} refused (SELECT ${db}: "ERR DB index is out of range"); a default server has 16 databases, 0 to 15 (its "databases" setting)\n`,
      );
    } finally {
      child.kill('SIGTERM');
      await exited;
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });

  it('stops with exit 1, naming the file, when a model file does not match its digest (never ready with it)', async () => {
    // weights.bin overwritten with zeros of its own length: it loaded, /readyz said ready, legitimate messages were spam.
    const { cpSync, statSync, writeFileSync } = await import('node:fs');
    const { listModelVersions } = await import('../../core/classifier/load.ts');
    const versions = await listModelVersions(path.join(repoRoot, 'models'));
    const version = versions[versions.length - 1] as string;
    const models = path.join(dir, 'corrupt-models');
    cpSync(path.join(repoRoot, 'models', version), path.join(models, version), { recursive: true });
    const weights = path.join(models, version, 'weights.bin');
    writeFileSync(weights, Buffer.alloc(statSync(weights).size));
    const port = await freePort();
    const { child, exited } = start({ PORT: String(port), MODELS_DIR: models });
    try {
      const outcome = await Promise.race([
        exited,
        waitReady(port, exited).then(
          () => 'ready' as const,
          () => 'not ready' as const,
        ),
      ]);
      expect(outcome).not.toBe('ready');
      const { code, stderr } = await exited;
      expect(code).toBe(1);
      expect(stderr).toContain(`formguard: ${weights} does not match its digest in manifest.json`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('serves the README example with the demo tenants and the real model, then exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const adminPort = await freePort();
    const { child, exited } = start({ PORT: String(port), ADMIN_PORT: String(adminPort) });
    await waitReady(port, exited);
    // /metrics and /docs on the admin port only: the public port is what the internet reaches.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/docs/json`)).status).toBe(404);
    const metrics = await fetch(`http://127.0.0.1:${adminPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^formguard_model_info\{version="[^"]+",feature_version="[^"]+",role="active"\} 1$/m);
    expect((await fetch(`http://127.0.0.1:${adminPort}/docs/json`)).status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${port}/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:8080' },
      body: JSON.stringify({
        apiKey: 'demo-key-change-me',
        formId: 'contact',
        payload: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          message: 'Hello, could you send me a quote for 20 oak chairs? Thanks, Ada',
        },
      }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    expect(json.status).toBe('legitimate');
    child.kill('SIGTERM');
    const { code, stdout } = await exited;
    expect(code).toBe(0);
    expect(stdout).toMatch(/TENANTS_FILE is not set/);
    expect(stdout).toMatch(/"msg":"stopped"/);
    expect(stdout).not.toContain('demo-key-change-me');
  });

  it('stops, naming ADMIN_PORT, when the admin port is taken, before the public port takes traffic', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const adminPort = (taken.address() as { port: number }).port;
    const port = await freePort();
    try {
      const { exited } = start({ PORT: String(port), ADMIN_PORT: String(adminPort) });
      const { code, stderr } = await exited;
      expect(code).toBe(1);
      expect(stderr).toBe(
        `formguard: ADMIN_PORT: cannot listen on 127.0.0.1:${adminPort} for /metrics and /docs (EADDRINUSE); set ADMIN_PORT to a free port, or to off\n`,
      );
    } finally {
      taken.close();
    }
  });

  it('with ADMIN_PORT=off, serves /metrics and /docs nowhere and says so', async () => {
    const port = await freePort();
    const { child, exited } = start({ PORT: String(port), ADMIN_PORT: 'off' });
    await waitReady(port, exited);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    child.kill('SIGTERM');
    const { code, stdout } = await exited;
    expect(code).toBe(0);
    expect(stdout).toContain('"msg":"ADMIN_PORT is off: /metrics and /docs are served nowhere"');
  });

  it('exits on SIGTERM after the reader of its log went away (EPIPE), instead of retrying the write forever', async () => {
    const port = await freePort();
    const { child, exited } = start({ PORT: String(port) });
    await waitReady(port, exited);
    // What `npm start | head` or a crashed log shipper leaves: stdout's pipe has no reader.
    child.stdout?.destroy();
    child.kill('SIGTERM');
    // Before, flushSync spun on EPIPE and the process never exited; the test's own timeout is the bound.
    const { code, stderr } = await exited;
    expect(code).toBe(0);
    expect(stderr).toContain('formguard: writing the log failed (EPIPE); log lines are dropped from now on');
  }, 30_000);

  it("docker-compose's command hands the signal to node: SIGTERM to the shell it starts drains the service", async () => {
    // `docker compose stop` sends SIGTERM to the container's PID 1, the shell of `command`. As PID 1 a shell ignores
    // it; elsewhere it dies of it. Either way, only a shell that exec'd node lets the service shut down cleanly. npm
    // ci and the build are skipped here (node_modules is installed, beforeAll built dist/).
    const compose = await readFile(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
    const command = /^ {4}command: sh -c "(.*)"$/m.exec(compose)?.[1];
    expect(command).toBeDefined();
    const script = (command ?? '').replace('npm ci', 'true').replace('npm run build', 'true');
    const port = await freePort();
    // Its own process group, so that a node left behind by the shell can be ended with it.
    const child = spawn('sh', ['-c', script], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), ADMIN_PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitReady(port, exited);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/"msg":"stopped"/);
    } finally {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // The group is gone: nothing was left behind.
      }
    }
  }, 30_000);

  it('with REDIS_URL, serves the moderator console from the bundle (its files are found from package.json)', async () => {
    const prefix = testPrefix('server');
    const tenants = path.join(dir, 'tenants-mod.json');
    const sha256 = createHash('sha256').update('moderator-token-for-the-server-test').digest('hex');
    await writeFile(tenants, JSON.stringify({ accounts: [{ id: 'a', apiKeys: [], forms: [], moderators: [{ id: 'm', sha256 }] }] }));
    const port = await freePort();
    const { child, exited } = start({
      PORT: String(port),
      TENANTS_FILE: tenants,
      REDIS_URL,
      BULLMQ_PREFIX: prefix,
      RATE_LIMIT_PREFIX: `${prefix}:rl`,
      REVIEW_SPOOL_DIR: path.join(dir, 'spool'),
    });
    const redis = new Redis(REDIS_URL);
    try {
      await waitReady(port, exited);
      const page = await fetch(`http://127.0.0.1:${port}/review/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const script = await fetch(`http://127.0.0.1:${port}/review/app.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });
});
