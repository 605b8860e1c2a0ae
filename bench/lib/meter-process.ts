import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { InProcessFigures } from './in-process.ts';

export type MeterRequest = { cmd: 'chunk' } | { cmd: 'result' };
export type MeterReply =
  { cmd: 'ready' } | { cmd: 'chunk'; medians: { infer: number; classify: number } } | { cmd: 'result'; figures: InProcessFigures };

/**
 * The in-process meter in a child process of its own. Not in the bench process: that one loads ioredis and
 * autocannon first, and ioredis defines a String subclass at load, after which V8 compiles string loops
 * without inlined charCodeAt: the classifier measured ~1.5x slower there than in the service's own process.
 */
export class MeterProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async start(repoRoot: string, quick: boolean): Promise<MeterProcess> {
    const child = fork(path.join(repoRoot, 'bench/children/in-process-child.ts'), [repoRoot, quick ? 'quick' : 'full'], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const meter = new MeterProcess(child);
    await meter.next('ready');
    return meter;
  }

  private next<K extends MeterReply['cmd']>(cmd: K): Promise<Extract<MeterReply, { cmd: K }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`in-process meter exited with ${code} before answering ${cmd}`));
      this.child.once('exit', onExit);
      this.child.once('message', (m: MeterReply) => {
        this.child.off('exit', onExit);
        if (m.cmd !== cmd) reject(new Error(`in-process meter answered ${m.cmd}, expected ${cmd}`));
        else resolve(m as Extract<MeterReply, { cmd: K }>);
      });
    });
  }

  async chunk(): Promise<{ infer: number; classify: number }> {
    this.child.send({ cmd: 'chunk' } satisfies MeterRequest);
    return (await this.next('chunk')).medians;
  }

  /** The figures over every chunk; the child exits. */
  async finish(): Promise<InProcessFigures> {
    this.child.send({ cmd: 'result' } satisfies MeterRequest);
    const figures = (await this.next('result')).figures;
    this.child.kill();
    return figures;
  }
}
