import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface ContactPost {
  readonly name: string;
  readonly email: string;
  readonly message: string;
}

/** Where posts go: `inbox` is processed mail, `held` is spam kept for a person to look at, never lost. */
export interface Mailbox {
  deliver(post: ContactPost, note: Record<string, unknown>): Promise<void>;
  hold(post: ContactPost, note: Record<string, unknown>): Promise<void>;
}

/** One JSON line per post in `<dir>/inbox.jsonl` and `<dir>/held.jsonl`: stands in for your mailer and database. */
export function fileMailbox(dir: string): Mailbox {
  const write = async (file: string, post: ContactPost, note: Record<string, unknown>) => {
    await mkdir(dir, { recursive: true });
    await appendFile(path.join(dir, file), `${JSON.stringify({ receivedAt: new Date().toISOString(), ...note, post })}\n`);
  };
  return { deliver: (post, note) => write('inbox.jsonl', post, note), hold: (post, note) => write('held.jsonl', post, note) };
}
