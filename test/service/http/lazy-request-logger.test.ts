import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../../service/config/logger.ts';
import { lazyChildLoggerFactory } from '../../../service/http/lazy-request-logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      cb();
    },
  });
  return { logger: pino({ ...loggerOptions('info'), timestamp: false, base: { service: 'formguard' } }, stream), lines };
}

describe('lazy request logger (request.log of the verify route)', () => {
  it('writes the same lines as the eager pino child it stands for', () => {
    const eager = capture();
    const lazy = capture();
    const log = (l: { info: pino.LogFn; error: pino.LogFn; warn: pino.LogFn }) => {
      l.info({ submissionId: 's-1', apiKey: 'never' }, 'client error');
      l.error({ err: new Error('boom') }, 'request failed');
      l.warn('plain %s', 'message');
    };
    log(eager.logger.child({ reqId: 'req-1' }, {}));
    log(lazyChildLoggerFactory(lazy.logger, { reqId: 'req-1' }, {}) as unknown as pino.Logger);
    const strip = (lines: string[]) => lines.map((l) => l.replace(/"stack":"[^"]*"/, '"stack":"…"'));
    expect(strip(lazy.lines)).toEqual(strip(eager.lines));
    expect(lazy.lines.join('\n')).not.toContain('never');
    expect(lazy.lines).toHaveLength(3);
  });

  it('makes the child only when it is first used', () => {
    const { logger } = capture();
    let children = 0;
    const counting = Object.assign(Object.create(logger) as pino.Logger, {
      child: (...args: Parameters<pino.Logger['child']>) => {
        children += 1;
        return logger.child(...args);
      },
    });
    const lazy = lazyChildLoggerFactory(counting, { reqId: 'req-2' }, {});
    expect(children).toBe(0);
    lazy.info('one');
    lazy.info('two');
    expect(children).toBe(1);
  });

  it('reports and changes the level, and makes grandchildren with both bindings', () => {
    const { logger, lines } = capture();
    const lazy = lazyChildLoggerFactory(logger, { reqId: 'req-3' }, {});
    expect(lazy.level).toBe('info');
    lazy.level = 'warn';
    lazy.info('dropped');
    lazy.child({ step: 'x' }).warn('kept');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ reqId: 'req-3', step: 'x', msg: 'kept' }),
    ]);
  });
});
