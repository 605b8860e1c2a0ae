import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { LEGIT, SPAM, startService, type ServiceProcess } from '../support/service-process.ts';

// The plain-HTTP recipes of clients/README.md, run as a reader would paste them.
const run = promisify(execFile);
const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../clients/README.md');
const KEY = 'recipe-test-key-0123456789abcdef';

function has(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function block(text: string, lang: string): string {
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(text);
  if (match?.[1] === undefined) throw new Error(`clients/README.md has no ${lang} block`);
  return match[1];
}

let dir: string;
let service: ServiceProcess;
let text: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fg-recipes-'));
  text = await readFile(readme, 'utf8');
  const tenants = path.join(dir, 'tenants.json');
  const sha256 = createHash('sha256').update(KEY).digest('hex');
  await writeFile(
    tenants,
    JSON.stringify({
      accounts: [
        {
          id: 'shop',
          apiKeys: [{ id: 'backend', sha256 }],
          forms: [
            { id: 'contact', allowedReferrers: ['shop.example'] },
            { id: 'elsewhere', allowedReferrers: ['elsewhere.example'] },
          ],
        },
      ],
    }),
  );
  service = await startService({ TENANTS_FILE: tenants });
});
afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the plain-HTTP recipes in clients/README.md', () => {
  it('curl: the exact headers get a verdict', async () => {
    const command = block(text, 'sh').replace('http://127.0.0.1:3000', service.url).replace('<API_KEY>', KEY);
    const { stdout } = await run('sh', ['-c', command]);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'legitimate', formId: 'contact' });
  });

  const cases = (call: (formId: string, fields: object, env?: Record<string, string>) => Promise<boolean>) => async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    expect(await call('contact', LEGIT)).toBe(true);
    expect(await call('contact', SPAM)).toBe(false);
    expect(await call('elsewhere', LEGIT)).toBe(false);
    expect(await call('contact', LEGIT, { FORMGUARD_API_KEY: 'not-the-key' })).toBe(true);
    expect(await call('contact', SPAM, { FORMGUARD_URL: closed })).toBe(true);
  };

  it.skipIf(!has('python3'))(
    'Python: legitimate → allow, spam and blocked → hold, invalid key and service down → allow',
    cases(async (formId, fields, env = {}) => {
      const file = path.join(dir, 'recipe.py');
      await writeFile(
        file,
        `${block(text, 'python')}\n\nimport sys\nprint(json.dumps(formguard_allows(json.loads(sys.argv[2]), sys.argv[1])))\n`,
      );
      const { stdout } = await run('python3', [file, formId, JSON.stringify(fields)], {
        env: { PATH: process.env.PATH ?? '', FORMGUARD_URL: service.url, FORMGUARD_API_KEY: KEY, ...env },
      });
      return JSON.parse(stdout) as boolean;
    }),
  );

  it.skipIf(!has('php'))(
    'PHP: legitimate → allow, spam and blocked → hold, invalid key and service down → allow',
    cases(async (formId, fields, env = {}) => {
      const file = path.join(dir, 'recipe.php');
      await writeFile(file, `${block(text, 'php')}\necho json_encode(formguard_allows(json_decode($argv[2], true), $argv[1]));\n`);
      const { stdout } = await run('php', [file, formId, JSON.stringify(fields)], {
        env: { PATH: process.env.PATH ?? '', FORMGUARD_URL: service.url, FORMGUARD_API_KEY: KEY, ...env },
      });
      return JSON.parse(stdout) as boolean;
    }),
  );
});
