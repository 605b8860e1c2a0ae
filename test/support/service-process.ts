import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { freePort } from './free-port.ts';

/** A submission the bundled model answers as legitimate, and one it answers as spam (checked on every run). */
export const LEGIT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Hello, could you send me a quote for 20 oak chairs? Thanks, Ada',
};
export const SPAM = {
  name: 'SEO Expert',
  email: 'seo.ranking.boost@gmail.com',
  message:
    'Boost your website to #1 on Google! Cheap backlinks, guaranteed ranking, 100% money back. Visit http://cheap-seo-backlinks.example/buy-now http://rank-fast.example CLICK HERE NOW!!!',
};

export interface ServiceProcess {
  readonly url: string;
  readonly port: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * The service as a user runs it (service/server.ts through tsx, the real model, no Redis), on a free loopback
 * port, ready to classify. `env` adds variables, e.g. TENANTS_FILE; without it the demo tenants file is used.
 */
export async function startService(env: Record<string, string> = {}, port?: number): Promise<ServiceProcess> {
  const listenPort = port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'service/server.ts')], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', PORT: String(listenPort), ADMIN_PORT: 'off', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${listenPort}`;
  for (let i = 0; ; i++) {
    if (gone) throw new Error(`the service exited before it was ready: ${stderr}`);
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error('the service was not ready within 60 s');
    }
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port: listenPort,
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
