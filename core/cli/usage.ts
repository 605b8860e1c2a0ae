import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command line that cannot be run (unknown flag, missing or bad value): printed with the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** node:util's parseArgs, with its errors (unknown option, missing value) as UsageErrors. */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (e) {
    // Node's message can span lines; the CLI's error is one line, then the usage.
    throw new UsageError((e as Error).message.replace(/\s*\n\s*/g, ' '));
  }
}
