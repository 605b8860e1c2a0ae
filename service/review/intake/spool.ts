import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { reviewJobSchema, type ReviewJob } from './job-schema.ts';
import { makeDir } from '../../../core/fs/make-dir.ts';
import { replaceFile } from '../../../core/fs/replace-file.ts';
import { syncDir } from '../../../core/fs/sync-dir.ts';
import { withSyncedFile } from '../../../core/fs/synced-file.ts';

const ACTIVE = 'review-spool.jsonl';
const DRAINING = /^review-spool\.[0-9a-z-]+\.draining\.jsonl$/;

export type DrainResult = { readonly sent: number; readonly skipped: number; readonly remaining: number };

/**
 * A bounded, fsync'd JSONL file of review jobs that could not reach Redis. Appends go to an active file;
 * a drain first renames it aside (so appends carry on), then sends its lines and deletes it. A drain that
 * fails part-way rewrites the file with the lines not yet sent; a crash mid-drain leaves the file to be
 * sent again at the next start, which is harmless because job id = submissionId makes re-adds idempotent.
 * One spool directory per service instance.
 */
export class ReviewSpool {
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #log: Logger;
  #bytes: number | undefined;
  /** Serialises every file operation of this spool. */
  #lock: Promise<unknown> = Promise.resolve();
  #draining = false;

  constructor(dir: string, maxBytes: number, log: Logger) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
    this.#log = log;
  }

  get dir(): string {
    return this.#dir;
  }

  /** Appends one job durably; false when the spool is full (the job is then lost, and counted as dropped). */
  append(job: ReviewJob): Promise<boolean> {
    return this.#locked(async () => {
      const line = `${JSON.stringify(job)}\n`;
      const size = Buffer.byteLength(line);
      const used = await this.#used();
      if (used + size > this.#maxBytes) return false;
      let created = false;
      await withSyncedFile(path.join(this.#dir, ACTIVE), 'a', 0o600, async (handle) => {
        created = (await handle.stat()).size === 0;
        await handle.write(line);
      });
      // A new active file is durable only once its name in the folder is: else a crash could take it, and this job.
      if (created) await syncDir(this.#dir);
      this.#bytes = used + size;
      return true;
    });
  }

  /** Bytes held on disk (active and draining files). */
  async size(): Promise<number> {
    return this.#locked(() => this.#used());
  }

  /** Sends every spooled job through `send`, oldest file first; stops at the first failure, keeping the rest. */
  async drain(send: (job: ReviewJob) => Promise<void>, keep: (job: ReviewJob) => boolean = () => true): Promise<DrainResult> {
    if (this.#draining) return { sent: 0, skipped: 0, remaining: await this.size() };
    this.#draining = true;
    try {
      const files = await this.#locked(async () => {
        await this.#rotate();
        return this.#drainingFiles();
      });
      let sent = 0;
      let skipped = 0;
      for (const file of files) {
        const r = await this.#drainFile(file, send, keep);
        sent += r.sent;
        skipped += r.skipped;
        if (!r.done) break;
      }
      const remaining = await this.#locked(async () => {
        this.#bytes = undefined;
        return this.#used();
      });
      return { sent, skipped, remaining };
    } finally {
      this.#draining = false;
    }
  }

  async #drainFile(
    file: string,
    send: (job: ReviewJob) => Promise<void>,
    keep: (job: ReviewJob) => boolean,
  ): Promise<{ sent: number; skipped: number; done: boolean }> {
    const full = path.join(this.#dir, file);
    const lines = (await readFile(full, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    let sent = 0;
    let skipped = 0;
    for (let i = 0; i < lines.length; i++) {
      const job = parseLine(lines[i] ?? '');
      if (job === undefined || !keep(job)) {
        skipped++;
        if (job === undefined) this.#log.warn({ file: full, line: i + 1 }, 'review spool: unreadable line skipped');
        continue;
      }
      try {
        await send(job);
        sent++;
      } catch (err) {
        // Until its folder is synced, a crash could bring back the file as it was, with the lines already sent.
        await this.#locked(() => replaceFile(full, lines.slice(i).map((l) => `${l}\n`).join(''), `${full}.tmp`, 0o600));
        this.#log.warn({ err: (err as Error).message, sent, left: lines.length - i }, 'review spool: drain paused, Redis not answering');
        return { sent, skipped, done: false };
      }
    }
    await this.#locked(async () => {
      await unlink(full);
      // Or a crash could bring the file back, and its lines would all be sent again.
      await syncDir(this.#dir);
    });
    return { sent, skipped, done: true };
  }

  /** Moves the active file aside so that appends during the drain start a new one. */
  async #rotate(): Promise<void> {
    const active = path.join(this.#dir, ACTIVE);
    try {
      const s = await stat(active);
      if (s.size === 0) return;
    } catch {
      return;
    }
    const name = `review-spool.${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}.draining.jsonl`;
    await rename(active, path.join(this.#dir, name));
    // Before any line of it is sent: a crash could otherwise bring the active file back with those lines.
    await syncDir(this.#dir);
  }

  async #drainingFiles(): Promise<string[]> {
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    return names.filter((n) => DRAINING.test(n)).sort();
  }

  async #used(): Promise<number> {
    if (this.#bytes !== undefined) return this.#bytes;
    await makeDir(this.#dir, 0o700);
    let total = 0;
    for (const name of await readdir(this.#dir)) {
      if (name !== ACTIVE && !DRAINING.test(name)) continue;
      total += (await stat(path.join(this.#dir, name))).size;
    }
    this.#bytes = total;
    return total;
  }

  #locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

function parseLine(line: string): ReviewJob | undefined {
  try {
    const parsed = reviewJobSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
