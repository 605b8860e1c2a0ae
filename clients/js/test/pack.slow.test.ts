import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.resolve(packageDir, '../../node_modules/typescript/bin/tsc');

let dir: string;
let tarball: string;
let files: string[];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-client-pack-'));
  // What a publisher runs: prepack builds dist/ with tsc, then the tarball is written.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: packageDir });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (info === undefined) throw new Error('npm pack reported no package');
  tarball = path.join(dir, info.filename);
  files = info.files.map((f) => f.path).sort();
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm pack of @formguard/client', () => {
  it('holds the built ESM, its types, the README and nothing else', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('README.md');
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json')).toEqual([]);
  });

  it('installs in an empty folder without a registry, imports, fails open, and type-checks a caller', async () => {
    const app = path.join(dir, 'app');
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], { cwd: app });
    // Port 9 on loopback (discard) has no listener here: the call fails open instead of throwing.
    await writeFile(
      path.join(app, 'main.js'),
      `import { FormguardClient } from '@formguard/client';
const client = new FormguardClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', retries: 0 });
const result = await client.verify({ formId: 'contact', payload: { message: 'hi' } });
console.log(JSON.stringify({ outcome: result.outcome, allow: result.allow, reason: result.reason }));
`,
    );
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({ outcome: 'failed-open', allow: true, reason: 'unreachable' });

    // A TypeScript caller narrows the union on outcome; a wrong field is a type error, so the types are really read.
    await writeFile(
      path.join(app, 'caller.ts'),
      `import { FormguardClient, type VerifyResult } from '@formguard/client';
export function note(r: VerifyResult): string {
  switch (r.outcome) {
    case 'spam': case 'legitimate': return r.submissionId + r.reasoning;
    case 'blocked': return r.reason;
    case 'failed-open': return r.reason + String(r.status ?? '') + (r.submissionId ?? '');
  }
}
export const client = new FormguardClient({ baseUrl: 'https://formguard.example', apiKey: 'k' });
`,
    );
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: [],
    };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['caller.ts'] }));
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
    await writeFile(
      path.join(app, 'wrong.ts'),
      `import type { VerifyResult } from '@formguard/client';\nexport const f = (r: VerifyResult): string => r.reasoning;\n`,
    );
    await writeFile(path.join(app, 'tsconfig.wrong.json'), JSON.stringify({ compilerOptions, files: ['wrong.ts'] }));
    const wrong = await run(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: app }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(wrong).toMatch(/Property 'reasoning' does not exist/);
  });
});
