import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listModelVersions } from '../../core/classifier/load.ts';
import { writeServingRecord } from '../../core/classifier/serving-record.ts';
import type { Redis } from 'ioredis';
import { REVIEW_QUEUE } from '../../service/review/intake/queue.ts';
import type { BenchBody } from './bodies.ts';
import { cpuMicros } from './cpu.ts';
import { load, median, type LoadResult } from './load.ts';
import { freePort, startServer, stopServer, type Started } from './processes.ts';

export interface ShadowFigures {
  /** SHADOW_SAMPLE_RATE of the "default" target (the service's default). */
  readonly defaultRate: number;
  readonly redis: boolean;
  readonly byTarget: Record<string, { rounds: number[]; reqPerSec: number; p99Ms: number; non2xx: number; cpuUsPerRequest: number }>;
  /** Per round, target req/s over the no-shadow server's in the same round; the median. */
  readonly ratios: Record<string, number>;
  /**
   * Per round, the no-shadow server's CPU time per request over the target's: the throughput ratio of a CPU-bound
   * server, and far steadier than req/s on a shared, busy machine (other tenants take wall time, not this CPU time).
   */
  readonly cpuRatios: Record<string, number>;
}

/** Waits (at most 30 s) until the review queue under `prefix` has no job waiting or being ingested. */
async function drained(redis: Redis | undefined, prefix: string | undefined): Promise<void> {
  if (redis === undefined || prefix === undefined) return;
  const key = (list: string) => `${prefix}:${REVIEW_QUEUE}:${list}`;
  for (let i = 0; i < 300; i++) {
    const [waiting, active] = await Promise.all([redis.llen(key('wait')), redis.llen(key('active'))]);
    if (waiting + active === 0) return;
    await new Promise((done) => setTimeout(done, 100));
  }
}

/**
 * A models folder holding the bundled model and, with `shadow`, a second copy under another version named as the
 * shadow in serving.json: the shadow costs what a real one would (same size), and agrees with the active model.
 */
async function modelsDir(repoRoot: string, dir: string, shadow: boolean): Promise<void> {
  const bundled = path.join(repoRoot, 'models');
  const active = (await listModelVersions(bundled)).at(-1) as string;
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(bundled, active), path.join(dir, active), { recursive: true });
  if (!shadow) return;
  const other = `${active}-shadow`;
  cpSync(path.join(bundled, active), path.join(dir, other), { recursive: true });
  const manifest = path.join(dir, other, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), version: other }));
  await writeServingRecord(dir, { active, previous: null, shadow: other, changedAt: new Date().toISOString(), changedBy: 'bench' });
}

/**
 * Verify throughput with a shadow model at the default SHADOW_SAMPLE_RATE (and at 1, every request) against the same
 * service without one, in alternating rounds of the same run.
 */
export async function shadowScenario(o: {
  repoRoot: string;
  tmp: string;
  env: (port: number) => NodeJS.ProcessEnv;
  /** Redis mode: the bench's client (to wait for each service's review queue to drain); undefined: embedded mode. */
  redis: Redis | undefined;
  defaultRate: number;
  bodies: readonly BenchBody[];
  rounds: number;
  durationS: number;
  warmS: number;
  log: (msg: string) => void;
}): Promise<ShadowFigures> {
  const plain = path.join(o.tmp, 'models-plain');
  const shadowed = path.join(o.tmp, 'models-shadow');
  await modelsDir(o.repoRoot, plain, false);
  await modelsDir(o.repoRoot, shadowed, true);
  const targets: Array<[string, string, string | undefined]> = [
    ['no-shadow', plain, undefined],
    ['shadow-default', shadowed, undefined],
    ['shadow-all', shadowed, '1'],
    // The no-shadow service again: its ratio to the first is the run's noise floor (an A/A comparison).
    ['control', plain, undefined],
  ];
  const servers: Started[] = [];
  const prefixes = new Map<string, string | undefined>();
  try {
    for (const [name, dir, rate] of targets) {
      const port = await freePort();
      const base = o.env(port);
      // Redis keys of its own: otherwise each service's in-process review worker drains the others' queue during
      // their rounds, and their CPU time is charged to whichever runs.
      const own = (key: string) => (base[key] === undefined ? {} : { [key]: `${base[key]}:${name}` });
      const env: NodeJS.ProcessEnv = {
        ...base,
        ...own('BULLMQ_PREFIX'),
        ...own('RATE_LIMIT_PREFIX'),
        ...own('SHADOW_PREFIX'),
        MODELS_DIR: dir,
        ...(rate === undefined ? {} : { SHADOW_SAMPLE_RATE: rate }),
      };
      prefixes.set(name, env.BULLMQ_PREFIX);
      servers.push(
        await startServer({
          name,
          entry: 'dist/server.js',
          cwd: o.repoRoot,
          env,
          port,
          readyPath: '/readyz',
          stderrFile: path.join(o.tmp, `${name}.stderr`),
        }),
      );
    }
    // The shadow loads after the active model: wait until /readyz names it.
    for (const s of servers.slice(1)) {
      for (let i = 0; i < 200; i++) {
        const r = (await (await fetch(`${s.url}/readyz`)).json()) as { shadowVersion?: string | null };
        if (r.shadowVersion) break;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    for (const s of servers) await load({ target: s.name, url: s.url, bodies: o.bodies, durationS: o.warmS });
    const results: LoadResult[] = [];
    const cpuPerRequest: Array<{ target: string; us: number }> = [];
    for (let r = 0; r < o.rounds; r++) {
      // Each round starts with the next target: whichever runs first or last in a round (a warmer JIT in the load
      // generator, a neighbour's burst) does not always favour the same one.
      for (const s of [...servers.slice(r % servers.length), ...servers.slice(0, r % servers.length)]) {
        const cpu0 = cpuMicros(s.pid);
        const res = await load({ target: s.name, url: s.url, bodies: o.bodies, durationS: o.durationS });
        // The shadow's work runs after each answer, and the review worker ingests what was queued: wait for both
        // before reading the CPU time, so each service's round carries its own work and no other round gets it.
        await new Promise((done) => setTimeout(done, 200));
        await drained(o.redis, prefixes.get(s.name));
        const cpuUs = (cpuMicros(s.pid) - cpu0) / Math.max(1, res.requests);
        results.push(res);
        cpuPerRequest.push({ target: s.name, us: cpuUs });
        o.log(
          `shadow round ${r + 1}/${o.rounds} ${s.name.padEnd(15)} ${res.reqPerSec.toFixed(0).padStart(6)} req/s  p99 ${res.p99Ms} ms  ${cpuUs.toFixed(0)} µs CPU/request  non2xx ${res.non2xx} ${JSON.stringify(res.statusCodes)} errors ${res.errors}`,
        );
      }
    }
    const of = (n: string) => results.filter((x) => x.target === n);
    const cpuOf = (n: string) => cpuPerRequest.filter((x) => x.target === n).map((x) => x.us);
    const byTarget = Object.fromEntries(
      servers.map((s) => [
        s.name,
        {
          rounds: of(s.name).map((x) => x.reqPerSec),
          reqPerSec: median(of(s.name).map((x) => x.reqPerSec)),
          p99Ms: median(of(s.name).map((x) => x.p99Ms)),
          non2xx: of(s.name).reduce((a, x) => a + x.non2xx + x.errors, 0),
          cpuUsPerRequest: median(cpuOf(s.name)),
        },
      ]),
    );
    const base = of('no-shadow');
    const ratios = Object.fromEntries(
      servers.slice(1).map((s) => [s.name, median(of(s.name).map((x, i) => x.reqPerSec / (base[i] as LoadResult).reqPerSec))]),
    );
    const cpuBase = cpuOf('no-shadow');
    const cpuRatios = Object.fromEntries(
      servers.slice(1).map((s) => [s.name, median(cpuOf(s.name).map((us, i) => (cpuBase[i] as number) / us))]),
    );
    return { defaultRate: o.defaultRate, redis: o.redis !== undefined, byTarget, ratios, cpuRatios };
  } finally {
    for (const s of servers.reverse()) await stopServer(s);
  }
}
