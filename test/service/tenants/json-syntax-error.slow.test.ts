import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../core/fs/repo-root.ts';
import { TenantsError } from '../../../service/tenants/compile.ts';
import { parseTenants } from '../../../service/tenants/load.ts';
import { TenantsStore } from '../../../service/tenants/store.ts';
import { captureLogger } from '../helpers.ts';
import { tenantsFile } from '../../support/tenants.ts';

// An operator pasted the raw key instead of its hash, unquoted: the file is not JSON any more.
const PASTED_KEY = 'fg_Zq8vKx2LmN4pRt6wYb0cDe1fGh3jKl5m';
const BROKEN = [
  '{"accounts": [',
  '  {"id": "acme",',
  `   "apiKeys": [{"id": "primary", "sha256": ${PASTED_KEY}}],`,
  '   "forms": []}',
  ']}',
  '',
].join('\n');
const KEY_COLUMN = BROKEN.split('\n')[2]!.indexOf(PASTED_KEY) + 1;

/** No run of 4 characters of the key (JSON.parse's own message quoted its first 10). */
function expectNoKeyText(text: string): void {
  for (let i = 0; i + 4 <= PASTED_KEY.length; i++) expect(text).not.toContain(PASTED_KEY.slice(i, i + 4));
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'formguard-json-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('a tenants file that is not JSON', () => {
  it('is reported by line, column and kind of error, without quoting the file', () => {
    let err: unknown;
    try {
      parseTenants(BROKEN, 'conf/tenants.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TenantsError);
    const message = (err as Error).message;
    expect(message).toBe(
      `conf/tenants.json: not valid JSON at line 3, column ${KEY_COLUMN}: an unexpected character (text that is not a string must be quoted)`,
    );
    expectNoKeyText(message);
  });

  it.each([
    ['a missing closing bracket', '{"accounts": [\n', /at line 2, column 1: expected '\]' to close an array$/],
    ['a comma after the last property', '{"accounts": [],\n}', /at line 2, column 1: expected a double-quoted property name/],
    ['a missing comma', '{"accounts": []\n "x": 1}', /at line 2, column 2: expected ',' between two elements$/],
    ['an unterminated string', '{"accounts": [{"id": "acme\n}]}', /at line 1, column 22: a string without its closing quote$/],
    ['text after the end', '{"accounts": []}\n{}', /at line 2, column 1: unexpected text after the end of the JSON value$/],
    ['a bad number', '{"accounts": [], "n": 1.}', /at line 1, column 23: a malformed number$/],
  ])('places %s', (_name, text, message) => {
    expect(() => parseTenants(text, 't.json')).toThrow(message);
  });

  it('keeps the key out of the service log when such an edit is rejected', async () => {
    const file = path.join(dir, 'tenants.json');
    await writeFile(file, JSON.stringify(tenantsFile()));
    const capture = captureLogger();
    const store = await TenantsStore.open(file, capture.logger);
    await writeFile(file, BROKEN);
    expect((await store.reload()).kind).toBe('rejected');
    const line = capture.lines.find((l) => l.msg === 'tenants file edit rejected; keeping the last good configuration');
    expect(String(line?.reason)).toContain(`not valid JSON at line 3, column ${KEY_COLUMN}`);
    expectNoKeyText(capture.text());
  });

  it("keeps the key out of the tenants CLI's stderr", async () => {
    const file = path.join(dir, 'tenants.json');
    await writeFile(file, BROKEN);
    const cli = promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'cli/tenants.ts'), 'list', '--file', file], {
      cwd: repoRoot,
    });
    const failed = (await cli.then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: number; stdout: string; stderr: string } | undefined;
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`not valid JSON at line 3, column ${KEY_COLUMN}`);
    expectNoKeyText(`${failed?.stdout ?? ''}${failed?.stderr ?? ''}`);
  });
});
