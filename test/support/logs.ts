import pino from 'pino';

/** A logger that drops everything. */
export const silent = pino({ level: 'silent' });

/** A pino logger that keeps its lines, to check what was (not) logged. */
export function captureLines(): { logger: pino.Logger; text: () => string } {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, text: () => lines.join('') };
}
