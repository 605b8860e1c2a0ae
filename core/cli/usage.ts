import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command line that cannot be run (unknown flag, missing or bad value): printed with the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A command that was understood but cannot be carried out (no such file, a refused change, an unreachable store):
 * printed as one line, without the usage, with its own exit code.
 */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util's parseArgs, with its errors (unknown option, missing value) as UsageErrors. */
export function parseFlags<const O extends Options, const P extends boolean = false>(argv: string[], options: O, positionals?: P) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: (positionals ?? false) as P });
  } catch (e) {
    // Node's message can span lines; the CLI's error is one line, then the usage.
    throw new UsageError((e as Error).message.replace(/\s*\n\s*/g, ' '));
  }
}

/** A whole number flag within bounds, or a UsageError naming the flag. */
export function wholeNumber(value: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(
      `${flag} must be a whole number of ${min} or more${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ''}, got ${value}`,
    );
  }
  return n;
}

/** Terminal-safe text: attacker-written fields must not drive the terminal (no escape sequences). */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
}
