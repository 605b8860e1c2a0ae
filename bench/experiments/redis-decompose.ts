// npx tsx bench/experiments/redis-decompose.ts [--rounds N] [--seconds S] [--base <rev>] [--base-mode m] [--only a,b,...] [--slowlog] [--env K=V,...]
// Where Redis mode's cost goes, in one run: the embedded service and three Redis-mode services loaded in turn on the
// mixed stream of `npm run bench -- --redis-vs-embedded` (realistic bodies, half spam, each text distinct):
//   limiter  Redis mode with the review store's two writes switched off: the rate limiter's round trip per request
//            (plus what is left of Redis mode: the sink's decision, the dashboard's counters once a second)
//   lookup   + the look-up writes of unqueued submissions (remember.lua)
//   full     + storing flagged submissions (ingest-batch.lua): Redis mode as it ships
// and, with --base <rev>, `base`: that revision's full Redis mode (checked out in a temporary worktree), for a
// before/after in the same run; --base-mode limiter|lookup loads that revision in that mode instead of full.
// The switches are experiment-only (bench/experiments/decompose-child.ts patches the store's two write methods to
// no-ops before the server starts); the service has no such setting. Each target is `node <bundle>` of that child,
// bundled as `npm run build` bundles the server. Redis is a private redis-server started here (its CPU readable).
// Per round and target: req/s, p99, and CPU time per request of the service, of redis-server and of this process (the
// load generator), all from /proc; after a Redis-mode round the script waits until the service holds nothing in
// memory for Redis, and counts that wait's CPU too. Redis's time by command over the rounds (INFO commandstats) goes
// to <date>-redis-decompose-commandstats.json; --slowlog adds a 3 s load of `full` with Redis's slow log at a threshold
// of 0, for its time by script. --env gives every Redis-mode service settings of its own (e.g. REVIEW_MAX_PENDING=2000,
// so an account reaches its caps within the first rounds and the rest measure a sustained flood). Results:
// bench/results/<date>-redis-decompose.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import { distinctBodies, realisticBodies } from '../lib/bodies.ts';
import { cpuMicros } from '../lib/cpu.ts';
import { load, type LoadResult } from '../lib/load.ts';
import { freePort, startRedisServer, startServer, stopServer, type Started } from '../lib/processes.ts';
import { median } from '../lib/stats.ts';
import { SCRIPTS } from '../../service/review/store/scripts.ts';
import { benchServiceEnv, writeBenchTenants } from '../lib/tenants.ts';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};
const rounds = Number(opt('--rounds') ?? 6);
const seconds = Number(opt('--seconds') ?? 5);
const baseTree = opt('--base');
const baseMode = opt('--base-mode') ?? 'full';
const extraEnv = Object.fromEntries(
  (opt('--env') ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => kv.split('=', 2) as [string, string]),
);
const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const t0 = Date.now();
const log = (msg: string) => process.stdout.write(`[decompose ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);

type Mode = 'embedded' | 'limiter' | 'lookup' | 'full' | 'base';
const allModes: Mode[] = ['embedded', 'limiter', 'lookup', 'full', ...(baseTree === undefined ? [] : (['base'] as const))];
const only = opt('--only')?.split(',') as Mode[] | undefined;
const modes = only === undefined ? allModes : allModes.filter((m) => m === 'embedded' || only.includes(m));

/** Bundles this checkout's decompose-child.ts against `tree`'s service (this checkout or --base's) into `outdir`. */
async function bundle(tree: string, outdir: string): Promise<string> {
  const entry = path.join(tree, 'bench', 'experiments', 'decompose-child.ts');
  // An older revision may have no child, or an older one: this one's, written into its tree.
  mkdirSync(path.dirname(entry), { recursive: true });
  if (tree !== repoRoot) writeFileSync(entry, readFileSync(path.join(repoRoot, 'bench', 'experiments', 'decompose-child.ts')));
  await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir,
    logLevel: 'warning',
  });
  return path.join(outdir, path.basename(entry, '.ts') + '.js');
}

interface Sample {
  round: number;
  mode: Mode;
  res: LoadResult;
  drainS: number;
  serviceCpuUs: number;
  redisCpuUs: number;
  loaderCpuUs: number;
  load1: number;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'fg-decompose-'));
  const baseDir = path.join(tmp, 'base');
  const redisServer = await startRedisServer(tmp);
  const redisPid = redisServer.pid;
  const redisUrl = redisServer.url;
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  const servers = new Map<Mode, { s: Started; metrics?: string }>();
  try {
    const own = await bundle(repoRoot, path.join(repoRoot, '.tmp', 'decompose', 'own'));
    if (baseTree !== undefined) {
      execFileSync('git', ['worktree', 'add', '--detach', baseDir, baseTree], { cwd: repoRoot, stdio: 'ignore' });
      symlinkSync(path.join(repoRoot, 'node_modules'), path.join(baseDir, 'node_modules'));
    }
    // Bundled inside its own tree: the bundle finds its Lua scripts (and models) by walking up to a package.json.
    const base = baseTree === undefined ? undefined : await bundle(baseDir, path.join(baseDir, '.tmp', 'decompose'));
    const tenantsFile = writeBenchTenants(tmp);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    for (const mode of modes) {
      const [port, admin] = [await freePort(), await freePort()];
      const env = benchServiceEnv(port, tenantsFile, {
        LOG_LEVEL: 'info',
        ADMIN_PORT: String(admin),
        FG_DECOMPOSE: mode === 'base' ? baseMode : mode,
        ...(mode === 'embedded'
          ? {}
          : {
              REDIS_URL: redisUrl,
              BULLMQ_PREFIX: `dc-${mode}`,
              RATE_LIMIT_PREFIX: `dc-${mode}:rl`,
              SHADOW_PREFIX: `dc-${mode}:shadow`,
              REVIEW_SPOOL_DIR: path.join(tmp, `spool-${mode}`),
              ...extraEnv,
            }),
      });
      const entry = mode === 'base' ? (base as string) : own;
      const s = await startServer({
        name: mode,
        entry,
        cwd: mode === 'base' ? baseDir : repoRoot,
        env,
        port,
        readyPath: '/readyz',
        stderrFile: path.join(tmp, `${mode}.stderr`),
        stdoutFile: path.join(tmp, `${mode}.log`),
      });
      servers.set(mode, { s, ...(mode === 'embedded' ? {} : { metrics: `http://127.0.0.1:${admin}/metrics` }) });
      log(`${mode} ready (pid ${s.pid})`);
    }
    const next = distinctBodies(realisticBodies(repoRoot));
    const waiting = async (url: string): Promise<number> => {
      const text = await (await fetch(url)).text();
      return ['formguard_review_waiting', 'formguard_review_lookup_waiting'].reduce(
        (sum, name) => sum + Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN),
        0,
      );
    };
    const drain = async (url: string | undefined): Promise<number> => {
      const start = Date.now();
      if (url === undefined) return 0;
      while (Date.now() - start < 120_000 && (await waiting(url)) !== 0) await new Promise((r) => setTimeout(r, 50));
      return (Date.now() - start) / 1000;
    };
    for (const [mode, { s, metrics }] of servers) {
      await load({ target: mode, url: s.url, bodies: [], next, durationS: 2 });
      await drain(metrics);
    }
    // Redis's own account of its time by command (Lua's calls counted under their command), over the rounds.
    await client.config('RESETSTAT');
    const samples: Sample[] = [];
    for (let r = 0; r < rounds; r++) {
      // The order rotates round by round, and every other round runs backwards.
      const k = r % modes.length;
      let order = [...modes.slice(k), ...modes.slice(0, k)];
      if (r % 2 === 1) order = order.reverse();
      for (const mode of order) {
        const { s, metrics } = servers.get(mode) as { s: Started; metrics?: string };
        const [c0, r0, l0] = [cpuMicros(s.pid), cpuMicros(redisPid), process.cpuUsage()];
        const res = await load({ target: mode, url: s.url, bodies: [], next, durationS: seconds });
        const drainS = await drain(metrics);
        const l1 = process.cpuUsage(l0);
        const sample: Sample = {
          round: r + 1,
          mode,
          res,
          drainS,
          serviceCpuUs: cpuMicros(s.pid) - c0,
          redisCpuUs: cpuMicros(redisPid) - r0,
          loaderCpuUs: l1.user + l1.system,
          load1: os.loadavg()[0] as number,
        };
        samples.push(sample);
        const per = (x: number) => (x / res.requests).toFixed(0).padStart(4);
        log(
          `round ${r + 1} ${mode.padEnd(8)} ${res.reqPerSec.toFixed(0).padStart(5)} req/s p99 ${String(res.p99Ms).padStart(4)} ms non2xx ${res.non2xx + res.errors}  CPU µs/req: service ${per(sample.serviceCpuUs)} redis ${per(sample.redisCpuUs)} loader ${per(sample.loaderCpuUs)}  drain ${drainS.toFixed(2)} s  load ${sample.load1.toFixed(1)}`,
        );
      }
    }
    // Redis's time per call by script, from its slow log at a threshold of 0, over one more load of the full mode.
    const full = servers.get('full');
    let scripts: Record<string, { calls: number; usPerCall: number; usPerRequest: number }> | undefined;
    if (argv.includes('--slowlog') && full !== undefined) {
      await client.config('SET', 'slowlog-log-slower-than', '0');
      await client.config('SET', 'slowlog-max-len', '1000000');
      await client.slowlog('RESET');
      const res = await load({ target: 'full', url: full.s.url, bodies: [], next, durationS: 3 });
      await drain(full.metrics);
      const entries = (await client.slowlog('GET', '-1')) as Array<[number, number, number, string[]]>;
      await client.config('SET', 'slowlog-log-slower-than', '10000');
      const names = new Map(Object.entries(SCRIPTS).map(([name, x]) => [x.sha, name]));
      const by = new Map<string, { calls: number; us: number }>();
      for (const [, , us, args] of entries) {
        const name =
          args[0]?.toLowerCase() === 'evalsha'
            ? `evalsha ${names.get(args[1] as string) ?? (args[2] === '2' ? 'rate limit' : (args[1] as string).slice(0, 8))}`
            : (args[0] ?? '?').toLowerCase();
        const x = by.get(name) ?? { calls: 0, us: 0 };
        x.calls++;
        x.us += us;
        by.set(name, x);
      }
      scripts = Object.fromEntries(
        [...by]
          .sort((a, b) => b[1].us - a[1].us)
          .map(([k, v]) => [k, { calls: v.calls, usPerCall: v.us / v.calls, usPerRequest: v.us / res.requests }]),
      );
      log(`slow log over ${res.requests} requests of the full mode: ${JSON.stringify(scripts)}`);
    }
    const summary = modes.map((mode) => {
      const mine = samples.filter((x) => x.mode === mode);
      const perReq = (f: (x: Sample) => number) => median(mine.map((x) => f(x) / x.res.requests));
      const vsEmbedded = (f: (x: Sample) => number) =>
        median(
          mine.map((x) => {
            const e = samples.find((y) => y.mode === 'embedded' && y.round === x.round) as Sample;
            return f(x) / f(e);
          }),
        );
      const cpuAll = (x: Sample) => (x.serviceCpuUs + x.redisCpuUs + x.loaderCpuUs) / x.res.requests;
      return {
        mode,
        reqPerSec: median(mine.map((x) => x.res.reqPerSec)),
        p99Ms: median(mine.map((x) => x.res.p99Ms)),
        non2xx: mine.reduce((a, x) => a + x.res.non2xx + x.res.errors + x.res.timeouts, 0),
        ratio: vsEmbedded((x) => x.res.reqPerSec),
        sustainedRatio: vsEmbedded((x) => x.res.requests / (x.res.seconds + x.drainS)),
        serviceUs: perReq((x) => x.serviceCpuUs),
        redisUs: perReq((x) => x.redisCpuUs),
        loaderUs: perReq((x) => x.loaderCpuUs),
        cpuRatio: vsEmbedded((x) => (x.serviceCpuUs + x.redisCpuUs) / x.res.requests),
        // On two cores that the service, Redis and the load generator keep busy, req/s goes as 1 / (all three's CPU per request).
        cpuBoundRatio: vsEmbedded((x) => 1 / cpuAll(x)),
      };
    });
    const load1 = samples.map((x) => x.load1);
    process.stdout.write(
      [
        '',
        `| target | req/s | p99 ms | non-2xx | req/s / embedded | sustained / embedded | service µs/req | redis µs/req | loader µs/req | (service + redis) / embedded | 1 / (all CPU) vs embedded |`,
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...summary.map(
          (s) =>
            `| ${s.mode} | ${s.reqPerSec.toFixed(0)} | ${s.p99Ms} | ${s.non2xx} | ${(100 * s.ratio).toFixed(1)}% | ${(100 * s.sustainedRatio).toFixed(1)}% | ${s.serviceUs.toFixed(0)} | ${s.redisUs.toFixed(0)} | ${s.loaderUs.toFixed(0)} | ${s.cpuRatio.toFixed(2)} | ${(100 * s.cpuBoundRatio).toFixed(1)}% |`,
        ),
        '',
        `load average (1 min) over the rounds: ${Math.min(...load1).toFixed(1)}-${Math.max(...load1).toFixed(1)}`,
        '',
      ].join('\n'),
    );
    const dir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date(t0).toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}-redis-decompose.json`);
    const reviewCounters: Record<string, string> = {};
    for (const [mode, { metrics }] of servers) {
      if (metrics === undefined) continue;
      const text = await (await fetch(metrics)).text();
      reviewCounters[mode] = [
        ...text.matchAll(
          /^formguard_(review_(?:queued|spooled|lookup_skipped|evicted)_total|review_(?:shed|dropped)_total\{reason="\w+"\}|redis_breaker_openings_total) (\S+)$/gm,
        ),
      ]
        .map((m) => `${m[1]} ${m[2]}`)
        .join(', ');
    }
    writeFileSync(
      file,
      JSON.stringify(
        {
          date: new Date(t0).toISOString(),
          commit,
          base: baseTree,
          baseMode,
          rounds,
          seconds,
          summary,
          reviewCounters,
          scripts,
          samples: samples.map((x) => ({ ...x, res: { ...x.res } })),
        },
        null,
        2,
      ) + '\n',
    );
    log(`review counters: ${JSON.stringify(reviewCounters)}`);
    const stats = ((await client.info('commandstats')) as string)
      .split('\n')
      .map((l) => /^cmdstat_(\S+):calls=(\d+),usec=(\d+)/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ command: m[1] as string, calls: Number(m[2]), usec: Number(m[3]) }))
      .sort((a, b) => b.usec - a.usec);
    const requests = samples.filter((x) => x.mode !== 'embedded').reduce((a, x) => a + x.res.requests, 0);
    log(
      `redis commands over the rounds, µs per Redis-mode request (calls per request): ${stats
        .slice(0, 20)
        .map((x) => `${x.command} ${(x.usec / requests).toFixed(1)} (${(x.calls / requests).toFixed(2)})`)
        .join(', ')}`,
    );
    writeFileSync(file.replace(/\.json$/, '-commandstats.json'), JSON.stringify({ requests, stats }, null, 2) + '\n');
    log(`wrote ${path.relative(repoRoot, file)}`);
  } finally {
    for (const { s } of servers.values()) await stopServer(s).catch(() => undefined);
    client.disconnect();
    await redisServer.stop();
    if (baseTree !== undefined) execFileSync('git', ['worktree', 'remove', '--force', baseDir], { cwd: repoRoot, stdio: 'ignore' });
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
