import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** Per-call cost of one call over a set of calls (µs). */
export interface AbCost {
  readonly calls: number;
  readonly medianUs: number;
  readonly p90Us: number;
  readonly p99Us: number;
}

/**
 * What one side of the A/B times: the extractor alone and the route's whole model call (extract, score,
 * reasoning) on the realistic bodies, and the extractor alone on the 64 KiB worst-case body (its per-character loops).
 */
export type AbKind = 'extract' | 'classify' | 'extract64k';
export const AB_KINDS: readonly AbKind[] = ['extract', 'classify', 'extract64k'];
/** One round of one side, per call: the median, and the fastest call (the least disturbed by the shared host). */
export type AbRound = Record<AbKind, { readonly medianUs: number; readonly minUs: number }>;

export type AbRequest = { cmd: 'digest' } | { cmd: 'warm' } | { cmd: 'chunk' } | { cmd: 'result' };
export type AbReply =
  | { cmd: 'ready'; modelVersion: string; featureVersion: string; bodies: number }
  | { cmd: 'digest'; sha256: string }
  | { cmd: 'warm' }
  | { cmd: 'chunk'; round: AbRound }
  | { cmd: 'result'; samplesUs: Record<AbKind, number[]> };

/**
 * One side of the A/B: a child process that loads the classifier and feature extractor from `coreDir` (a copy of
 * core/ at some revision, or the working tree's) and times them on request. Each side stays warm in its own
 * process while the other runs, so neither shares JIT feedback with the other, and the bench alternates them.
 */
export class AbProcess {
  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    readonly info: Extract<AbReply, { cmd: 'ready' }>,
  ) {}

  static async start(label: string, repoRoot: string, coreDir: string, modelsDir: string, quick: boolean): Promise<AbProcess> {
    const child = fork(path.join(repoRoot, 'bench/children/ab-child.ts'), [coreDir, repoRoot, quick ? 'quick' : 'full', modelsDir], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const info = await reply(child, 'ready', label);
    return new AbProcess(label, child, info);
  }

  private async ask<K extends AbReply['cmd'] & AbRequest['cmd']>(cmd: K): Promise<Extract<AbReply, { cmd: K }>> {
    const answer = reply(this.child, cmd, this.label);
    this.child.send({ cmd } as AbRequest);
    return answer;
  }

  /** SHA-256 of every body's feature vector and verdict: equal digests, equal output. */
  async digest(): Promise<string> {
    return (await this.ask('digest')).sha256;
  }

  async warm(): Promise<void> {
    await this.ask('warm');
  }

  /** One timed round: each call's median and minimum over its calls (µs). */
  async chunk(): Promise<AbRound> {
    return (await this.ask('chunk')).round;
  }

  /** Every timed call of every round so far (µs). */
  async result(): Promise<Record<AbKind, number[]>> {
    return (await this.ask('result')).samplesUs;
  }

  stop(): void {
    this.child.kill();
  }
}

function reply<K extends AbReply['cmd']>(child: ChildProcess, cmd: K, label: string): Promise<Extract<AbReply, { cmd: K }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`A/B side ${label} exited with ${code} before answering ${cmd}`));
    child.once('exit', onExit);
    child.once('message', (m: AbReply) => {
      child.off('exit', onExit);
      if (m.cmd !== cmd) reject(new Error(`A/B side ${label} answered ${m.cmd}, expected ${cmd}`));
      else resolve(m as Extract<AbReply, { cmd: K }>);
    });
  });
}
