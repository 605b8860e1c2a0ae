import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { freePort } from '../support/free-port.ts';
import { postVerify } from '../support/post-verify.ts';
import { tempDir } from '../support/temp-dir.ts';

// The real server with REDIS_URL pointing at a port nothing listens on (Redis down), every verdict flagged for
// review, saturated by closed-loop clients, then SIGTERM with a short grace. Every flagged job (one per 200 answer)
// must end up in the spool or be counted as dropped in the log: none lost unsaid.
const CLIENTS = 32;
const LOAD_MS = 4_000;
const KEY = 'shutdown-test-key';

/** The submissionId of a verify answer's body, if it is JSON that has one. */
function submissionIdOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { submissionId?: string }).submissionId;
  } catch {
    return undefined;
  }
}

describe('SIGTERM after a saturated run with Redis down', () => {
  it('leaves every flagged job in the spool or counted as dropped in the log', async () => {
    const tmp = await tempDir('shutdown-redis-down');
    const spoolDir = path.join(tmp.dir, 'spool');
    const tenantsFile = path.join(tmp.dir, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        accounts: [
          {
            id: 'acme',
            apiKeys: [{ id: 'k', sha256: sha256Hex(KEY) }],
            rateLimit: { max: 1_000_000_000, windowSeconds: 60, algorithm: 'sliding' },
            forms: [{ id: 'contact', allowedReferrers: ['localhost'] }],
          },
        ],
      }),
    );
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'service/server.ts')], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        ADMIN_PORT: 'off',
        LOG_LEVEL: 'warn',
        TENANTS_FILE: tenantsFile,
        // Nothing listens there: Redis is down for the whole run.
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        REVIEW_BAND: '1',
        REVIEW_SAMPLE_RATE: '1',
        REVIEW_SPOOL_DIR: spoolDir,
        SHUTDOWN_GRACE_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; ; i++) {
        if (i > 600) throw new Error(`server did not become ready: ${stderr}`);
        if (
          await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const flagged = new Set<string>();
      const statuses = new Map<number, number>();
      let stopAt = Date.now() + LOAD_MS;
      const client = async (c: number) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let n = 0; Date.now() < stopAt; n++) {
            const body = JSON.stringify({
              apiKey: KEY,
              formId: 'contact',
              payload: { name: `Sender ${c}`, message: `Hello, could you send me a quote for ${n} oak chairs? Client ${c}` },
            });
            const r = await postVerify(port, agent, body);
            if ('error' in r) return;
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            const submissionId = r.status === 200 ? submissionIdOf(r.body) : undefined;
            if (submissionId !== undefined) flagged.add(submissionId);
          }
        } finally {
          agent.destroy();
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
      await new Promise((r) => setTimeout(r, LOAD_MS));
      // Right after the run, with its jobs still on their way to the spool.
      child.kill('SIGTERM');
      stopAt = 0;
      await Promise.all(clients);
      await exited;

      const spooled = new Set<string>();
      for (const name of await readdir(spoolDir).catch(() => [] as string[])) {
        if (!name.endsWith('.jsonl')) continue;
        for (const line of (await readFile(path.join(spoolDir, name), 'utf8')).split('\n')) {
          if (line.trim() !== '') spooled.add((JSON.parse(line) as { submissionId: string }).submissionId);
        }
      }
      let counted = 0;
      for (const line of stdout.split('\n')) {
        if (!line.includes('jobs dropped')) continue;
        counted += (JSON.parse(line) as { dropped: number }).dropped;
      }
      const missing = [...flagged].filter((id) => !spooled.has(id));
      expect(flagged.size).toBeGreaterThan(200);
      // Every flagged job whose answer went out is in the spool, or counted (and logged) as dropped.
      expect({ missing: missing.length, counted, flagged: flagged.size }).toEqual({
        missing: Math.min(missing.length, counted),
        counted,
        flagged: flagged.size,
      });
    } finally {
      child.kill('SIGKILL');
      await tmp.remove();
    }
  }, 120_000);
});
