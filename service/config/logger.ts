import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const SECRET_KEYS = ['apiKey', 'token', 'payload', 'fieldData', 'fields', 'body'];
const HOLDERS = ['req', 'request', 'job', 'data', 'item', 'submission', 'record', 'entry'];

/**
 * Never logged: API keys, tokens, cookies and the submitted fields, at the top level or one level down under the
 * usual holder names. Explicit paths, not "*.apiKey" wildcards: those make every log line ~2x slower.
 */
export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...HOLDERS.flatMap((h) => SECRET_KEYS.map((k) => `${h}.${k}`)),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'formguard' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
}

/**
 * Bytes sonic-boom gathers into one write while the previous write is in flight. It measures the pending chunk
 * (Buffer.byteLength, which flattens it) on every line, so with the 16 KiB default each line under load copies up
 * to 16 KiB; 4 KiB keeps that copy small and still batches ~12 verify lines per write.
 */
export const LOG_MAX_WRITE_BYTES = 4096;

/** Asynchronous stdout: log writes never block the request path (flushed on shutdown and at exit). */
export function createDestination(): ReturnType<typeof pino.destination> {
  return pino.destination({ sync: false, maxWrite: LOG_MAX_WRITE_BYTES });
}

export function createLogger(level: string, destination: DestinationStream = createDestination()): Logger {
  return pino(loggerOptions(level), destination);
}

/**
 * A flush for shutdown that cannot hang: sonic-boom's flushSync retries a failed write forever unless the error is
 * EAGAIN or EBUSY, so once stdout's reader was gone (EPIPE) a shutdown never ended, even on a second SIGTERM. A
 * write in flight is let finish or fail first; after a failure (reported once on stderr) log lines are dropped.
 */
export function guardedFlush(destination: ReturnType<typeof pino.destination>): () => Promise<void> {
  let failed = false;
  destination.on('error', (err: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    process.stderr.write(`formguard: writing the log failed (${err.code ?? err.message}); log lines are dropped from now on\n`);
  });
  return async () => {
    // sonic-boom has no public "write in flight" flag; its own flushSync reads the same field.
    if ((destination as unknown as { _writing: boolean })._writing) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          destination.off('drain', done);
          destination.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, 2000);
        destination.once('drain', done);
        destination.once('error', done);
      });
    }
    if (!failed) destination.flushSync();
  };
}
