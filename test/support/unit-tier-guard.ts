// The unit project's setup file: a unit-tier test file must not need Redis or a browser. Whatever tries (a connection
// to the test Redis, a redis-server or Chromium started, a child given its URL) is refused at once and fails the
// test, so a file that needs them cannot sit in the fast tier by accident: name it *.redis.test.ts or *.browser.test.ts.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach } from 'vitest';
import { REDIS_URL } from './redis.ts';

const INSTALLED = Symbol.for('formguard.unitTierGuard');
const REFUSED_COMMANDS = /^(redis-server|redis-cli|chromium|chromium-browser|chrome|google-chrome|headless_shell)$/;

const redisPort = Number(new URL(REDIS_URL).port || 6379);
const violations: string[] = [];

/** Thrown (and recorded) when a unit-tier test reaches for Redis or a browser. */
export class UnitTierViolation extends Error {
  constructor(what: string) {
    super(`the unit tier has no Redis and no browser, but this test ${what}: name the file *.redis.test.ts or *.browser.test.ts`);
    this.name = 'UnitTierViolation';
  }
}

function refuse(what: string): never {
  violations.push(what);
  throw new UnitTierViolation(what);
}

/** What was refused since the last call (and forgets it): the guard's own test reads its refusals here. */
export function takeViolations(): string[] {
  return violations.splice(0);
}

/** The port a Socket#connect call names: (options), (port, host?), or (path) for a Unix socket. */
function connectPort(args: unknown[]): number | undefined {
  const [first] = args;
  const normalized = Array.isArray(first) ? first[0] : first; // net's internal call passes [options, cb]
  if (typeof normalized === 'number') return normalized;
  if (typeof normalized === 'string' && /^\d+$/.test(normalized)) return Number(normalized);
  if (typeof normalized === 'object' && normalized !== null && 'port' in normalized) return Number((normalized as { port: unknown }).port);
  return undefined;
}

/** Whether a redis:// URL names the test Redis's port (a URL at a port nothing listens on is a "Redis down" test). */
function atTestRedis(url: unknown): boolean {
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url)) return false;
  try {
    return Number(new URL(url).port || 6379) === redisPort;
  } catch {
    return false;
  }
}

function checkSpawn(command: unknown, args: unknown, options: unknown): void {
  if (typeof command === 'string' && REFUSED_COMMANDS.test(path.basename(command))) refuse(`started ${path.basename(command)}`);
  if (Array.isArray(args) && args.some(atTestRedis)) refuse('started a child with the Redis URL');
  const opts = (Array.isArray(args) ? options : args) as { env?: Record<string, string | undefined> } | undefined;
  if (atTestRedis(opts?.env?.REDIS_URL)) refuse('started a child with REDIS_URL');
}

function install(): void {
  const registry = globalThis as { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    if (connectPort(args) === redisPort) refuse(`connected to Redis at port ${redisPort}`);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;

  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync'] as const) {
    const original = childProcess[name] as ((...a: unknown[]) => unknown) & { [promisify.custom]?: (...a: unknown[]) => unknown };
    const checked = function (this: unknown, ...a: unknown[]) {
      checkSpawn(a[0], a[1], a[2]);
      return original.apply(this, a);
    };
    // promisify(execFile) resolves { stdout, stderr } through execFile's own custom form: keep it, checked the same way.
    const custom = original[promisify.custom];
    if (custom !== undefined) {
      Object.defineProperty(checked, promisify.custom, {
        value: function (this: unknown, ...a: unknown[]) {
          checkSpawn(a[0], a[1], a[2]);
          return custom.apply(this, a);
        },
      });
    }
    (childProcess as unknown as Record<string, unknown>)[name] = checked;
  }
  // `import { spawn } from 'node:child_process'` reads the ESM bindings: bring them in line with the patched module.
  syncBuiltinESMExports();
}

install();

function failOnViolations(): void {
  const seen = takeViolations();
  if (seen.length > 0) throw new UnitTierViolation(seen.join('; '));
}
afterEach(failOnViolations);
afterAll(failOnViolations);
