import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ORIGIN, realisticBodies, type BenchBody } from './bodies.ts';
import { cpuMicros } from './cpu.ts';
import { load, type LoadResult } from './load.ts';
import { freePort, startServer, stopServer, type Started } from './processes.ts';
import { meanInterval, median, type Interval } from './stats.ts';
import { benchServiceEnv, writeBenchTenants } from './tenants.ts';

/** What `npm run bench -- --ab <rev>` measured: the bundled service of `rev` (A) against the working tree's (B), under load. */
export interface ServiceAbReport {
  readonly kind: 'service';
  readonly date: string;
  readonly quick: boolean;
  readonly a: { readonly rev: string; readonly commit: string };
  readonly b: { readonly commit: string; readonly dirty: boolean };
  readonly machine: { readonly nproc: number; readonly node: string; readonly loadAvgStart: number; readonly loadAvgEnd: number };
  readonly bodies: { readonly count: number; readonly minBytes: number; readonly maxBytes: number };
  /** Whether A and B answered every body with the same status, confidence, reasoning and model version. */
  readonly sameAnswers: boolean;
  readonly rounds: number;
  readonly durationS: number;
  /** Per round, in the order measured. */
  readonly perRound: ReadonlyArray<Record<'bare' | 'a' | 'b', RoundFigures>>;
  /** B / A of req/s, per round; the geometric mean with its 95% t-interval (below 1: B is slower). */
  readonly throughput: Interval;
  /** A's CPU µs per request over B's, per round (above 1: B costs less CPU per request); geometric mean, 95% t-interval. */
  readonly cpu: Interval;
  /** verify / bare of each side, per round, the median; p99 of each side, the median over rounds. */
  readonly ofBare: { readonly a: number; readonly b: number };
  readonly p99Ms: { readonly bare: number; readonly a: number; readonly b: number };
  readonly cpuUsPerRequest: { readonly bare: number; readonly a: number; readonly b: number };
}

interface RoundFigures {
  readonly reqPerSec: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  readonly non2xx: number;
}

/** Rounds per pair of A and B processes. */
const ROUNDS_PER_PAIR = 8;

const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * The revision checked out in a temporary git worktree under the system's temp folder, sharing this checkout's
 * node_modules (a symlink: the same packages on both sides) and built with that revision's own `npm run build`.
 */
export function materializeRevision(repoRoot: string, rev: string): { commit: string; dir: string; cleanup: () => void } {
  const commit = git(repoRoot, ['rev-parse', '--verify', '--short', `${rev}^{commit}`]);
  const dir = mkdtempSync(path.join(os.tmpdir(), `formguard-ab-${commit}-`));
  git(repoRoot, ['worktree', 'add', '--detach', '--force', dir, commit]);
  const cleanup = () => {
    try {
      git(repoRoot, ['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git(repoRoot, ['worktree', 'prune']);
    }
  };
  try {
    symlinkSync(realpathSync(path.join(repoRoot, 'node_modules')), path.join(dir, 'node_modules'));
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    if (!existsSync(path.join(dir, 'dist', 'server.js'))) throw new Error(`${rev} (${commit}): npm run build wrote no dist/server.js`);
  } catch (err) {
    cleanup();
    throw err;
  }
  return { commit, dir, cleanup };
}

/** What a verify answer says about the submission (not its id or timing), for comparing two services' output. */
async function answersDigest(s: Started, bodies: readonly BenchBody[]): Promise<string> {
  const h = createHash('sha256');
  for (const b of bodies) {
    const r = await fetch(s.url + '/v1/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
      body: b.json,
    });
    const v = (await r.json()) as Record<string, unknown>;
    h.update(JSON.stringify([r.status, v.status, v.confidence, v.reasoning, v.modelVersion]));
  }
  return h.digest('hex');
}

/**
 * Loads three processes in rounds: a bare Fastify route, the service built from `rev` (A) and the one built from the
 * working tree (B), both `node dist/server.js` as `npm start` runs them, on the same realistic 0.5-2 KB bodies. The
 * order within a round rotates; each round yields B / A of req/s and of CPU time per request. The host is 2 shared
 * cores whose speed moves over minutes: only figures of the same round are compared, and the interval over rounds
 * says what the run can resolve.
 */
export async function runServiceAb(opts: {
  repoRoot: string;
  rev: string;
  quick: boolean;
  rounds?: number;
  log: (msg: string) => void;
}): Promise<ServiceAbReport> {
  const { repoRoot, rev, quick, log } = opts;
  const rounds = opts.rounds ?? (quick ? 4 : 24);
  const durationS = quick ? 2 : 3;
  const loadAvgStart = os.loadavg()[0] as number;
  const bodies = realisticBodies(repoRoot).filter((b) => b.bytes >= 512);
  const sizes = bodies.map((b) => b.bytes);
  log(`building ${rev} in a temporary worktree, and the working tree`);
  const old = materializeRevision(repoRoot, rev);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-ab-run-'));
  const servers: Started[] = [];
  try {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    const tenantsFile = writeBenchTenants(tmp);
    // As the standard bench and production: one log line per request (to /dev/null here).
    const env = (port: number): NodeJS.ProcessEnv => benchServiceEnv(port, tenantsFile, { LOG_LEVEL: 'info' });
    const start = async (name: string, cwd: string, entry: string) => {
      const port = await freePort();
      const s = await startServer({
        name,
        entry,
        cwd,
        env: env(port),
        port,
        readyPath: '/readyz',
        stderrFile: path.join(tmp, `${name}.stderr`),
      });
      servers.push(s);
      return s;
    };
    const bare = await start('bare', repoRoot, 'bench/children/bare-server.ts');
    let sameAnswers = true;
    const perRound: Array<Record<'bare' | 'a' | 'b', RoundFigures>> = [];
    // Fresh A and B processes every few rounds: where a process's threads land on a shared host (and its JIT's
    // luck) can hold it a few percent off for minutes, which alternating rounds alone do not cancel.
    for (let first = 0; first < rounds; first += ROUNDS_PER_PAIR) {
      const a = await start('a', old.dir, 'dist/server.js');
      const b = await start('b', repoRoot, 'dist/server.js');
      if (first === 0) {
        sameAnswers = (await answersDigest(a, bodies)) === (await answersDigest(b, bodies));
        log(`A = ${rev} (${old.commit}), B = working tree; ${bodies.length} bodies; answers ${sameAnswers ? 'identical' : 'DIFFER'}`);
        await load({ target: bare.name, url: bare.url, bodies, durationS: quick ? 1 : 3 });
      }
      for (const s of [a, b]) await load({ target: s.name, url: s.url, bodies, durationS: quick ? 1 : 3 });
      const all = [bare, a, b];
      for (let r = first; r < Math.min(rounds, first + ROUNDS_PER_PAIR); r++) {
        const got: Partial<Record<'bare' | 'a' | 'b', RoundFigures>> = {};
        // Rotate and mirror the order, so no side is always first or always after the bare route.
        const rotated = [...all.slice(r % 3), ...all.slice(0, r % 3)];
        for (const s of r % 2 === 0 ? rotated : rotated.reverse()) {
          const cpu0 = cpuMicros(s.pid);
          const res: LoadResult = await load({ target: s.name, url: s.url, bodies, durationS });
          const cpuUs = (cpuMicros(s.pid) - cpu0) / Math.max(1, res.requests);
          got[s.name as 'bare' | 'a' | 'b'] = {
            reqPerSec: res.reqPerSec,
            p99Ms: res.p99Ms,
            cpuUsPerRequest: cpuUs,
            non2xx: res.non2xx + res.errors,
          };
        }
        const g = got as Record<'bare' | 'a' | 'b', RoundFigures>;
        perRound.push(g);
        log(
          `round ${String(r + 1).padStart(2)}/${rounds}  bare ${g.bare.reqPerSec.toFixed(0)}  A ${g.a.reqPerSec.toFixed(0)} (${g.a.cpuUsPerRequest.toFixed(0)} µs CPU, p99 ${g.a.p99Ms})  B ${g.b.reqPerSec.toFixed(0)} (${g.b.cpuUsPerRequest.toFixed(0)} µs CPU, p99 ${g.b.p99Ms})  B/A ${(g.b.reqPerSec / g.a.reqPerSec).toFixed(3)}, by CPU ${(g.a.cpuUsPerRequest / g.b.cpuUsPerRequest).toFixed(3)}`,
        );
      }
      for (const s of [b, a]) {
        await stopServer(s);
        servers.splice(servers.indexOf(s), 1);
      }
    }
    const col = (side: 'bare' | 'a' | 'b', k: keyof RoundFigures) => perRound.map((g) => g[side][k]);
    return {
      kind: 'service',
      date: new Date().toISOString(),
      quick,
      a: { rev, commit: old.commit },
      b: {
        commit: git(repoRoot, ['rev-parse', '--short', 'HEAD']),
        dirty: git(repoRoot, ['status', '--porcelain', '--untracked-files=no', '--', 'core', 'service', 'package.json']) !== '',
      },
      machine: { nproc: os.availableParallelism(), node: process.version, loadAvgStart, loadAvgEnd: os.loadavg()[0] as number },
      bodies: { count: bodies.length, minBytes: Math.min(...sizes), maxBytes: Math.max(...sizes) },
      sameAnswers,
      rounds,
      durationS,
      perRound,
      throughput: meanInterval(perRound.map((g) => g.b.reqPerSec / g.a.reqPerSec)),
      cpu: meanInterval(perRound.map((g) => g.a.cpuUsPerRequest / g.b.cpuUsPerRequest)),
      ofBare: {
        a: median(perRound.map((g) => g.a.reqPerSec / g.bare.reqPerSec)),
        b: median(perRound.map((g) => g.b.reqPerSec / g.bare.reqPerSec)),
      },
      p99Ms: { bare: median(col('bare', 'p99Ms')), a: median(col('a', 'p99Ms')), b: median(col('b', 'p99Ms')) },
      cpuUsPerRequest: {
        bare: median(col('bare', 'cpuUsPerRequest')),
        a: median(col('a', 'cpuUsPerRequest')),
        b: median(col('b', 'cpuUsPerRequest')),
      },
    };
  } finally {
    for (const s of servers.reverse()) await stopServer(s);
    rmSync(tmp, { recursive: true, force: true });
    old.cleanup();
  }
}

export function renderServiceAb(r: ServiceAbReport): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const ci = (x: Interval) => `${x.mean.toFixed(3)} (95% CI ${x.low.toFixed(3)}-${x.high.toFixed(3)})`;
  return [
    `## Service A/B: ${r.a.rev} (${r.a.commit}) = A, working tree at ${r.b.commit}${r.b.dirty ? ' (+uncommitted changes)' : ''} = B${r.quick ? ' (QUICK)' : ''}`,
    '',
    `${r.rounds} rounds of ${r.durationS} s per target (bare route, A, B; order rotating; A and B started afresh every ${ROUNDS_PER_PAIR} rounds), both sides \`node dist/server.js\` built ` +
      `from their own tree; ${r.bodies.count} realistic bodies of ${r.bodies.minBytes}-${r.bodies.maxBytes} B; ${r.machine.nproc} cores, load average ` +
      `${r.machine.loadAvgStart.toFixed(1)} → ${r.machine.loadAvgEnd.toFixed(1)}; answers ${r.sameAnswers ? 'identical on every body' : 'DIFFER between A and B'}.`,
    '',
    '| figure | A | B | B / A (geometric mean over rounds, 95% CI) |',
    '|---|---:|---:|---:|',
    `| req/s as a share of the bare route's (median over rounds) | ${pct(r.ofBare.a)} | ${pct(r.ofBare.b)} | ${ci(r.throughput)} |`,
    `| CPU µs per request (median; bare route ${r.cpuUsPerRequest.bare.toFixed(0)}) | ${r.cpuUsPerRequest.a.toFixed(0)} | ${r.cpuUsPerRequest.b.toFixed(0)} | ${ci(r.cpu)} (A's CPU / B's: above 1, B is cheaper) |`,
    `| p99 ms (median over rounds; bare route ${r.p99Ms.bare}) | ${r.p99Ms.a} | ${r.p99Ms.b} | |`,
  ].join('\n');
}
