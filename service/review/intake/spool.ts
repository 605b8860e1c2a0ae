import { open, readdir, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { reviewJobSchema, type ReviewJob } from './job-schema.ts';
import { makeDir } from '../../../core/fs/make-dir.ts';
import { replaceFile } from '../../../core/fs/replace-file.ts';
import { syncDir } from '../../../core/fs/sync-dir.ts';

const ACTIVE = 'review-spool.jsonl';
const DRAINING = /^review-spool\.[0-9a-z-]+\.draining\.jsonl$/;

export type DrainResult = { readonly sent: number; readonly skipped: number; readonly remaining: number };

/** What became of one append: written whole and synced, or not written at all (and why). */
export type AppendResult =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'spool_full' | 'write_failed'; readonly code?: string };

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

  /**
   * Appends one job durably and all-or-nothing: a write the disk took only part of (ENOSPC, EIO) is cut off
   * again, so a job is either whole in the file or not in it, and the next job never lands on a torn line.
   */
  async append(job: ReviewJob): Promise<AppendResult> {
    const [result] = await this.appendMany([job]);
    return result as AppendResult;
  }

  /**
   * Appends jobs in one write and one fsync (what keeps the spool up with a whole instance's flagged traffic when
   * Redis is down: an fsync per job could not). The jobs that fit under the byte bound are written together, all or
   * none; the rest are `spool_full`. One result per job, in order.
   */
  appendMany(jobs: readonly ReviewJob[]): Promise<AppendResult[]> {
    return this.#locked(async () => {
      const lines = jobs.map((job) => Buffer.from(`${JSON.stringify(job)}\n`));
      let room = this.#maxBytes - (await this.#used());
      const fits = lines.map((line) => {
        if (line.length > room) return false;
        room -= line.length;
        return true;
      });
      const full: AppendResult = { ok: false, reason: 'spool_full' };
      const batch = Buffer.concat(lines.filter((_, i) => fits[i]));
      if (batch.length === 0) return jobs.map(() => full);
      const written = await this.#write(batch);
      return fits.map((fit) => (fit ? written : full));
    });
  }

  /** Writes whole lines and syncs them; on any failure the file is cut back to its last whole line. */
  async #write(batch: Buffer): Promise<AppendResult> {
    const file = path.join(this.#dir, ACTIVE);
    let handle: FileHandle;
    try {
      handle = await open(file, 'a+', 0o600);
    } catch (err) {
      return { ok: false, reason: 'write_failed', code: errorCode(err) };
    }
    let before = 0;
    try {
      before = await wholeLines(handle);
      await writeAll(handle, batch, before);
      await handle.sync();
    } catch (err) {
      // Back to the last whole line: a torn job must not be read as one, nor glue the next job onto itself.
      await handle.truncate(before).catch(() => undefined);
      await handle.sync().catch(() => undefined);
      this.#bytes = undefined;
      return { ok: false, reason: 'write_failed', code: errorCode(err) };
    } finally {
      await handle.close().catch(() => undefined);
    }
    // A new active file is durable only once its name in the folder is: else a crash could take it, and these jobs.
    if (before === 0) {
      try {
        await syncDir(this.#dir);
      } catch (err) {
        this.#bytes = undefined;
        return { ok: false, reason: 'write_failed', code: errorCode(err) };
      }
    }
    this.#bytes = undefined;
    return { ok: true };
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
        await this.#locked(() =>
          replaceFile(
            full,
            lines
              .slice(i)
              .map((l) => `${l}\n`)
              .join(''),
            `${full}.tmp`,
            0o600,
          ),
        );
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

/**
 * The size of the file up to and including its last newline, after cutting anything past it: a tail without a
 * newline is a line a crash or a failed write left half-written, which was never reported as spooled.
 */
async function wholeLines(handle: FileHandle): Promise<number> {
  const size = (await handle.stat()).size;
  if (size === 0) return 0;
  // The common case, one byte read: the file ends with a newline.
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  const window = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - window.length);
    const { bytesRead } = await handle.read(window, 0, end - start, start);
    const at = window.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) {
      const whole = start + at + 1;
      if (whole < size) await handle.truncate(whole);
      return whole;
    }
    end = start;
  }
  await handle.truncate(0);
  return 0;
}

/** Writes every byte or throws: a short write (the disk filling up mid-line) is an error, not a success. */
async function writeAll(handle: FileHandle, data: Buffer, at: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, at + done);
    if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'unknown';
}

function parseLine(line: string): ReviewJob | undefined {
  try {
    const parsed = reviewJobSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
