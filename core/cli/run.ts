import { CommandError, UsageError } from './usage.ts';

export interface Command {
  /** As the user types it after `npm run`, e.g. "train" or "labels:export"; prefixes every error line. */
  readonly name: string;
  readonly usage: string;
  /** Runs the command; sets process.exitCode itself for a partial failure it has already reported. */
  readonly main: (argv: string[]) => Promise<void>;
  /** Errors of other modules that mean "cannot be carried out" (bad data, a refused change): their exit code. */
  readonly exitCodeOf?: (err: Error) => number | undefined;
  /** Runs after main, whether it failed or not (closing connections). */
  readonly cleanup?: () => void | Promise<void>;
}

/**
 * Every command's one convention: `--help` prints the usage (exit 0); a usage error prints `<name>: <message>` and
 * the usage (exit 2); a refused command prints `<name>: <message>` (its exit code, 1 unless it says); anything
 * unexpected prints its stack (exit 1).
 */
export function runCommand(command: Command, argv = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(command.usage);
    return;
  }
  command
    .main(argv)
    .catch((err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      if (e instanceof UsageError) return fail(`${command.name}: ${e.message}\n\n${command.usage}`, 2);
      const code = e instanceof CommandError ? e.exitCode : command.exitCodeOf?.(e);
      if (code !== undefined) return fail(`${command.name}: ${e.message}`, code);
      return fail(e.stack ?? `${command.name}: ${e.message}`, 1);
    })
    .finally(async () => {
      await command.cleanup?.();
      // A failed command ends here: a leftover handle (a backend's worker, a socket) must not keep it running.
      if (process.exitCode !== undefined && process.exitCode !== 0) process.exit();
    });
}

// exitCode, not exit(): pending output (a pipe) is flushed and cleanup still runs.
function fail(text: string, code: number): void {
  console.error(text);
  process.exitCode = code;
}
