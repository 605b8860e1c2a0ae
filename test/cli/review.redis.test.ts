import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { ReviewStore } from '../../service/review/store/review-store.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../support/redis.ts';
import { fakeJob } from '../service/review/helpers.ts';
import { tempDir } from '../support/temp-dir.ts';
import { missingDatabaseUrl } from '../support/redis.ts';

const run = promisify(execFile);
const prefix = testPrefix('cli');
const redis = new Redis(REDIS_URL);
const store = new ReviewStore(redis, { prefix, retentionDays: 30 });
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const env = { ...process.env, REDIS_URL, BULLMQ_PREFIX: prefix };
const cli = (script: string, args: string[]) => run(tsx, [path.join(repoRoot, 'cli', script), ...args], { env, cwd: repoRoot });

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

describe('npm run review / labels:export', () => {
  it('lists, shows and labels one account’s items from a terminal, without passing escape sequences through', async () => {
    const job = fakeJob({ accountId: 'acme', fields: { message: 'hi \u001b[2J\u001b[31mred' } });
    const other = fakeJob({ accountId: 'globex' });
    await store.items.ingest(job);
    await store.items.ingest(other);
    const list = await cli('review.ts', ['list', '--account', 'acme']);
    expect(list.stdout).toContain(job.submissionId);
    // Which database and prefix were read: an empty list from the wrong one must not pass for an empty queue.
    expect(list.stdout).toMatch(new RegExp(`db \\d+, prefix "${prefix}"`));
    expect(list.stdout).not.toContain(other.submissionId);
    expect(list.stdout).not.toContain('\u001b');
    const show = await cli('review.ts', ['show', '--account', 'acme', job.submissionId]);
    expect(show.stdout).toMatch(/label\s+pending/);
    expect(show.stdout).not.toContain('\u001b');
    // Another account's item is not found (exit 1, one line), not a usage mistake (exit 2 with the usage text).
    await expect(cli('review.ts', ['label', '--account', 'acme', other.submissionId, 'spam'])).rejects.toMatchObject({
      code: 1,
      stderr: `review: no submission ${other.submissionId} in review for account acme\n`,
    });
    await expect(cli('review.ts', ['show', '--account', 'acme', other.submissionId])).rejects.toMatchObject({ code: 1 });
    await cli('review.ts', ['label', '--account', 'acme', job.submissionId, 'legitimate', '--moderator', 'terminal-tom']);
    expect(await store.labels.getLabel('acme', job.submissionId)).toMatchObject({ label: 'legitimate', moderatorId: 'terminal-tom' });
    // Undoing another moderator's relabel brings the earlier label back, and the CLI says so.
    await cli('review.ts', ['label', '--account', 'acme', job.submissionId, 'spam', '--moderator', 'terminal-ann']);
    const undone = await cli('review.ts', ['undo', '--account', 'acme', '--moderator', 'terminal-ann']);
    expect(undone.stdout).toBe(`Undid your label of ${job.submissionId}; it is back to legitimate by terminal-tom.\n`);

    const out = await tempDir('cli-labels');
    try {
      expect((await cli('labels-export.ts', ['--dir', out.dir])).stdout).toMatch(/Exported 1 label/);
      expect((await cli('labels-export.ts', ['--dir', out.dir])).stdout).toMatch(
        new RegExp(`No new labels in Redis 127\\.0\\.0\\.1:\\d+ db \\d+, prefix "${prefix}"`),
      );
      expect((await readdir(out.dir)).length).toBe(1);
    } finally {
      await out.remove();
    }
  });

  it('answers bad arguments and an unreachable Redis with a message and exit 2, not a stack trace', async () => {
    const refused = (script: string, args: string[], extra: Record<string, string> = {}) =>
      run(tsx, [path.join(repoRoot, 'cli', script), ...args], { env: { ...env, ...extra }, cwd: repoRoot }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
    const badLimit = await refused('review.ts', ['list', '--account', 'acme', '--limit', 'abc']);
    expect(badLimit).toMatchObject({ code: 2, stderr: expect.stringMatching(/^review: --limit must be a whole number/) });
    const unknown = await refused('labels-export.ts', ['--bogus']);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringMatching(/^labels:export: Unknown option '--bogus'/) });
    const down = await refused('labels-export.ts', [], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(down).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^labels:export: Cannot reach Redis at 127\.0\.0\.1:1 \(REDIS_URL\): connect ECONNREFUSED/),
    });
    // A database the server refuses: plain ioredis listed database 0's queue while the tool named the other one.
    const { url, db } = await missingDatabaseUrl();
    const noSuchDb = await refused('review.ts', ['list', '--account', 'acme'], { REDIS_URL: url });
    expect(noSuchDb).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`(REDIS_URL): REDIS_URL names database ${db}, which the Redis server at`),
    });
    for (const r of [badLimit, unknown, down, noSuchDb]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('npm run labels:erase', () => {
  it('erases an account from the files and the store, and reports counts, never content', async () => {
    const job = fakeJob({ accountId: 'erase-co', fields: { message: 'erase-co private words' } });
    const other = fakeJob({ accountId: 'keep-co', fields: { message: 'keep-co words' } });
    for (const j of [job, other]) await store.items.ingest(j);
    await store.labels.label('erase-co', job.submissionId, 'spam', 'alice');
    await store.labels.label('keep-co', other.submissionId, 'spam', 'kim');
    const out = await tempDir('cli-erase');
    try {
      await cli('labels-export.ts', ['--dir', out.dir]);
      const dry = await cli('labels-erase.ts', ['--account', 'erase-co', '--dir', out.dir, '--dry-run']);
      expect(dry.stdout).toBe(
        `Dry run: nothing was changed, and the review store was not read.\n` +
          `Would erase 1 label line(s) and 0 withdrawal line(s) of 1 submission(s) from ${out.dir}: ${(await readdir(out.dir))[0]} (1 line(s)).\n`,
      );
      const [name] = await readdir(out.dir);
      const run = await cli('labels-erase.ts', ['--account', 'erase-co', '--dir', out.dir]);
      expect(run.stdout).toMatch(
        new RegExp(
          `^Erased account erase-co from Redis 127\\.0\\.0\\.1:\\d+ db \\d+, prefix "${prefix}": 1 item\\(s\\), 1 label\\(s\\), \\d+ key\\(s\\) in all\\.\n`,
        ),
      );
      expect(run.stdout).toContain(
        `Erased 1 label line(s) and 0 withdrawal line(s) of 1 submission(s) from ${out.dir}: ${name} (1 line(s)).\n`,
      );
      expect(run.stdout).not.toContain('private words');
      const text = await readFile(`${out.dir}/${name}`, 'utf8');
      expect(text).not.toContain(job.submissionId);
      expect(text).toContain(other.submissionId);
      expect(await store.items.get('erase-co', job.submissionId)).toBeUndefined();
      expect(await store.labels.getLabel('keep-co', other.submissionId)).toBeDefined();

      const again = await cli('labels-erase.ts', ['--submission', job.submissionId, '--dir', out.dir]);
      expect(again.stdout).toContain(`Submission ${job.submissionId}: not in Redis`);
      expect(again.stdout).toContain(`No label lines of submission ${job.submissionId} in ${out.dir}.`);
    } finally {
      await out.remove();
    }
  });

  it('refuses to guess (exit 2: no selector, a bad submissionId, no REDIS_URL without --files-only); a missing folder is exit 1', async () => {
    const out = await tempDir('cli-erase-usage');
    const refused = (args: string[], extra: Record<string, string> = {}) =>
      run(tsx, [path.join(repoRoot, 'cli/labels-erase.ts'), ...args], { env: { ...env, ...extra }, cwd: repoRoot }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    try {
      expect(await refused(['--dir', out.dir])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^labels:erase: Say what to erase: --account, --submission or --form\./),
      });
      expect(await refused(['--submission', 'abc', '--dir', out.dir])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^labels:erase: --submission takes a submissionId \(a UUID\), got abc/),
      });
      expect(await refused(['--account', 'acme', '--dir', out.dir], { REDIS_URL: '' })).toMatchObject({
        code: 2,
        stderr:
          'labels:erase: REDIS_URL is not set: the review queue lives in Redis. labels:erase erases the store too: set it, or give --files-only to erase the files alone.\n',
      });
      expect(await refused(['--account', 'acme', '--dir', out.dir, '--files-only'], { REDIS_URL: '' })).toMatchObject({
        code: 0,
        stdout: `--files-only: the review store was not touched.\nNo label lines of account acme in ${out.dir}.\n`,
      });
      expect(await refused(['--account', 'acme', '--dir', `${out.dir}/missing`, '--files-only'])).toMatchObject({
        code: 1,
        stderr: `labels:erase: ${out.dir}/missing is not a folder of exported labels\n`,
      });
    } finally {
      await out.remove();
    }
  });
});
