// npm run bench [-- --quick] [-- --no-redis] [-- --shadow-only] [-- --redis-vs-embedded] [-- --accounts] [-- --lists] [-- --workers N]
// --redis-vs-embedded: only the mixed-stream scenario (Redis mode against embedded, half spam, distinct texts; a few
// minutes instead of the whole run), on the terminal and in bench/results/<date>-redis-vs-embedded.json.
// npm run bench -- --ab [<rev>] [--quick] [--rounds N]: (<rev> defaults to bench/baseline-rev) only the A/B of the bundled service built from <rev> against the
// working tree's, under load, each against a bare route in the same rounds (bench/lib/ab-service.ts).
// npm run bench -- --ab <rev> --in-process: the interleaved A/B of core/'s extractor and classifier alone, in
// process, no servers (bench/lib/ab.ts). With --own-models each side loads the newest model of its own tree (A: the
// revision's models/), so a new model's classify cost is measured against the old one's in one run.
// Loads the production service (its own process, started as `npm start` starts it) and a bare Fastify route
// (its own process) in alternating rounds with autocannon from this process, and reports ratios measured in
// the same run: the machine is 2 shared cores, so absolute req/s vary from run to run; the ratio is the figure.
import { writeBenchTenants } from '../lib/tenants.ts';
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { renderAb, runAb } from '../lib/ab.ts';
import { renderServiceAb, runServiceAb } from '../lib/ab-service.ts';
import { BENCH_ORIGIN, describeSet, realisticBodies, worstCaseBody, type BenchBody } from '../lib/bodies.ts';
import { MeterProcess } from '../lib/meter-process.ts';
import { CONNECTIONS, load, median, type LoadResult } from '../lib/load.ts';
import { freePort, rssMiB, startServer, stopServer, type Started } from '../lib/processes.ts';
import { renderMarkdown, targetsMet, type BenchReport } from '../lib/report.ts';
import { shadowScenario } from '../lib/shadow-scenario.ts';
import { redisVsEmbedded, renderRedisVsEmbedded } from '../lib/redis-vs-embedded.ts';
import { DEFAULT_SHADOW_SAMPLE_RATE } from '../../service/config/env.ts';
import { renderWorkersMarkdown, runWorkersBench, writeWorkersResult } from './workers.ts';
import { deleteMatching } from '../lib/redis-keys.ts';

const argv = new Set(process.argv.slice(2));
// --workers N: only the WORKERS=1..N scan (bench/entries/workers.ts), not the standard run.
const workersArg = process.argv.indexOf('--workers');
const maxWorkers = workersArg < 0 ? undefined : Number(process.argv[workersArg + 1]);
if (maxWorkers !== undefined && !(Number.isInteger(maxWorkers) && maxWorkers >= 1)) {
  process.stderr.write('--workers takes a whole number of processes (1 or more), e.g. --workers 4\n');
  process.exit(2);
}
const abAt = process.argv.indexOf('--ab');
const abArg = abAt >= 0 ? process.argv[abAt + 1] : undefined;
// --ab alone: against the recorded baseline commit (bench/baseline-rev), the regression guard of docs/performance.md.
const abRev = abAt < 0 ? undefined : abArg === undefined || abArg.startsWith('--') ? baselineRev() : abArg;

function baselineRev(): string {
  const file = path.join(import.meta.dirname, '..', 'baseline-rev');
  const rev = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  if (rev === undefined) {
    process.stderr.write(
      `${file} names no revision; usage: npm run bench -- --ab [<git revision>] [--quick] [--rounds N] [--in-process]\n`,
    );
    process.exit(2);
  }
  return rev;
}
const quick = argv.has('--quick');
const withRedis = !argv.has('--no-redis');
// Only the shadow-model scenario (a minute instead of the whole run), reported on the terminal, nothing written.
const shadowOnly = argv.has('--shadow-only');
const mixedOnly = argv.has('--redis-vs-embedded');
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const cfg = quick
  ? { rounds: 2, durationS: 2, bigRounds: 1, bigDurationS: 2, warmS: 1, amount: 20_000, maxAmountS: 60, readyStarts: 1 }
  : { rounds: 5, durationS: 5, bigRounds: 3, bigDurationS: 4, warmS: 2, amount: 1_000_000, maxAmountS: 420, readyStarts: 3 };
// 420 s: the Redis-mode server on a busy host (3,300 req/s) needs ~300 s for 1M; fewer requests cannot judge the target.
// The 1M requests go in 10 chunks, RSS read after each: a plateau and a leak look different, one reading does not.
const RSS_CHUNKS = 10;

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const started = new Date();
const log = (msg: string) => process.stdout.write(`[bench ${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`);

function machine() {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const sh = (c: string) => execSync(c, { cwd: repoRoot, encoding: 'utf8' }).trim();
  const fastify = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/fastify/package.json'), 'utf8')) as { version: string })
    .version;
  return {
    nproc: Number(sh('nproc')),
    cpu,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    fastify,
    commit: sh('git rev-parse --short HEAD'),
    dirty: sh('git status --porcelain --untracked-files=no -- service models package.json') !== '',
  };
}

async function preflight(s: Started, bodies: readonly BenchBody[]): Promise<void> {
  for (const b of bodies) {
    const r = await fetch(s.url + '/v1/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
      body: b.json,
    });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`${s.name}: ${b.id} (${b.bytes} B) answered ${r.status}: ${text.slice(0, 300)}`);
  }
}

async function main(): Promise<void> {
  const m = machine();
  log(
    `${m.nproc} cores, ${m.cpu}, Node ${m.node}, Fastify ${m.fastify}, commit ${m.commit}${m.dirty ? ' (+uncommitted changes)' : ''}${quick ? ', QUICK run' : ''}`,
  );
  const realistic = realisticBodies(repoRoot);
  const worst = worstCaseBody(repoRoot);
  log(`bodies: ${realistic.length} realistic (${JSON.stringify(describeSet(realistic).bytes)} B), worst case ${worst.bytes} B`);

  // In-process cost is measured in chunks between load rounds (no load running during a chunk), so the
  // figure covers the whole run rather than whichever minute came first.
  const meter = await MeterProcess.start(repoRoot, quick);
  const measureChunk = async (when: string) => {
    const m1 = await meter.chunk();
    log(`in-process chunk (${when}): 1 KB featurize+infer median ${m1.infer.toFixed(1)} µs, with reasoning ${m1.classify.toFixed(1)} µs`);
  };
  await measureChunk('start');

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-bench-'));
  const tenantsFile = writeBenchTenants(tmp);
  const runId = `fgbench-${process.pid}-${Date.now().toString(36)}`;
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  };
  const serviceEnv = (port: number, redis: boolean, adminPort = 0): NodeJS.ProcessEnv => ({
    ...baseEnv,
    PORT: String(port),
    // The admin server (/metrics, /docs) runs as in production, on a free port: two services run side by side here.
    ADMIN_PORT: String(adminPort),
    TENANTS_FILE: tenantsFile,
    ...(redis
      ? {
          REDIS_URL,
          BULLMQ_PREFIX: runId,
          RATE_LIMIT_PREFIX: `${runId}:rl`,
          SHADOW_PREFIX: `${runId}:shadow`,
          REVIEW_SPOOL_DIR: path.join(tmp, 'spool'),
        }
      : {}),
  });

  let redisClient: Redis | undefined;
  if (withRedis) {
    redisClient = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redisClient.connect();
      await redisClient.ping();
    } catch (err) {
      log(`Redis at ${REDIS_URL} does not answer (${(err as Error).message}); skipping the Redis bench`);
      redisClient.disconnect();
      redisClient = undefined;
    }
  }

  const servers: Started[] = [];
  const report: Partial<BenchReport> = {
    quick,
    date: started.toISOString(),
    machine: m,
    config: {
      ...cfg,
      connections: CONNECTIONS,
      bodies: realistic.length,
      layouts: new Set(realistic.map((b) => b.layout)).size,
      languages: new Set(realistic.map((b) => b.lang)).size,
    },
  };
  try {
    const start = async (name: string, entry: string, env: NodeJS.ProcessEnv, port: number, readyPath: string) =>
      startServer({ name, entry, cwd: repoRoot, env, port, readyPath, stderrFile: path.join(tmp, `${name}.stderr`) });

    // The service runs as `npm start` runs it: bundled once (its prestart), then `node dist/server.js`.
    execSync('npm run build --silent', { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    // A shadow model at the default SHADOW_SAMPLE_RATE against none, in the mode the service runs with Redis in (the
    // shadow's counts go there), in rounds of its own.
    const shadow = () =>
      shadowScenario({
        repoRoot,
        tmp,
        env: (port) => serviceEnv(port, redisClient !== undefined),
        redis: redisClient,
        defaultRate: DEFAULT_SHADOW_SAMPLE_RATE,
        bodies: realistic,
        rounds: cfg.rounds,
        durationS: cfg.durationS,
        warmS: cfg.warmS,
        log,
      });
    if (shadowOnly) {
      const figures = await shadow();
      const p = (x: number | undefined) => `${(100 * (x ?? NaN)).toFixed(1)}%`;
      log(
        `shadow at SHADOW_SAMPLE_RATE ${figures.defaultRate}: ${p(figures.ratios['shadow-default'])} of the no-shadow req/s (by CPU time per request: ${p(figures.cpuRatios['shadow-default'])}); at 1, every request: ${p(figures.ratios['shadow-all'])} (by CPU: ${p(figures.cpuRatios['shadow-all'])}); a second no-shadow service (noise floor): ${p(figures.ratios['control'])} (by CPU: ${p(figures.cpuRatios['control'])})`,
      );
      return;
    }
    const mixed = (embedded: Started, redis: Started, client: Redis, metricsUrl: string) =>
      redisVsEmbedded({
        embedded,
        redis,
        redisClient: client,
        metricsUrl,
        prefix: runId,
        bodies: realistic,
        rounds: cfg.rounds,
        durationS: cfg.durationS,
        warmS: cfg.warmS,
        log,
      });
    if (mixedOnly) {
      if (redisClient === undefined) throw new Error(`--redis-vs-embedded needs Redis at ${REDIS_URL}`);
      const [ePort, rPort, rAdmin] = [await freePort(), await freePort(), await freePort()];
      const embedded = await start('verify', 'dist/server.js', serviceEnv(ePort, false), ePort, '/readyz');
      servers.push(embedded);
      const redis = await start('verify-redis', 'dist/server.js', serviceEnv(rPort, true, rAdmin), rPort, '/readyz');
      servers.push(redis);
      const figures = {
        date: started.toISOString(),
        machine: m,
        loadavg: os.loadavg(),
        ...(await mixed(embedded, redis, redisClient, `http://127.0.0.1:${rAdmin}/metrics`)),
      };
      figures.loadavg = os.loadavg().map((x, i) => (x + (figures.loadavg[i] ?? x)) / 2);
      process.stdout.write(
        `\n${renderRedisVsEmbedded(figures)}\n\nload average (1 min, start and end averaged): ${figures.loadavg[0]?.toFixed(1)}\n`,
      );
      const dir = path.join(repoRoot, 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      const file = path.join(
        dir,
        `${started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}-redis-vs-embedded${quick ? '-quick' : ''}.json`,
      );
      writeFileSync(file, JSON.stringify(figures, null, 2) + '\n');
      log(`wrote ${path.relative(repoRoot, file)}`);
      return;
    }
    const barePort = await freePort();
    const bare = await start('bare', 'bench/children/bare-server.ts', { ...baseEnv, PORT: String(barePort) }, barePort, '/readyz');
    servers.push(bare);
    // Start-to-ready of the service: spawn → /readyz 200 (model loaded), a few cold starts, the last one kept.
    const readyMs: number[] = [];
    let verify: Started | undefined;
    for (let i = 0; i < cfg.readyStarts; i++) {
      const port = await freePort();
      const s = await start('verify', 'dist/server.js', serviceEnv(port, false), port, '/readyz');
      readyMs.push(s.readyMs);
      if (i < cfg.readyStarts - 1) await stopServer(s);
      else verify = s;
    }
    if (verify === undefined) throw new Error('unreachable');
    servers.push(verify);
    let verifyRedis: Started | undefined;
    const redisAdmin = await freePort();
    if (redisClient !== undefined) {
      const port = await freePort();
      verifyRedis = await start('verify-redis', 'dist/server.js', serviceEnv(port, true, redisAdmin), port, '/readyz');
      servers.push(verifyRedis);
    }
    log(
      `ready: bare ${bare.readyMs.toFixed(0)} ms, verify ${readyMs.map((x) => x.toFixed(0)).join('/')} ms${verifyRedis ? `, verify-redis ${verifyRedis.readyMs.toFixed(0)} ms` : ''}`,
    );
    report.ready = {
      bareMs: bare.readyMs,
      verifyMs: readyMs,
      verifyMedianMs: median(readyMs),
      ...(verifyRedis ? { verifyRedisMs: verifyRedis.readyMs } : {}),
    };

    for (const s of servers.slice(1)) await preflight(s, [...realistic, worst]);
    const targets = servers;
    for (const s of targets) await load({ target: s.name, url: s.url, bodies: realistic, durationS: cfg.warmS });

    const runRounds = async (label: string, bodies: readonly BenchBody[], rounds: number, durationS: number) => {
      const results: LoadResult[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const s of targets) {
          const res = await load({ target: s.name, url: s.url, bodies, durationS });
          results.push(res);
          log(
            `${label} round ${r + 1}/${rounds} ${s.name.padEnd(12)} ${res.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${res.p50Ms} ms  p99 ${res.p99Ms} ms  non2xx ${res.non2xx} err ${res.errors}`,
          );
        }
        await measureChunk(`after ${label} round ${r + 1}`);
      }
      return summarize(
        results,
        targets.map((t) => t.name),
      );
    };
    report.realistic = await runRounds('realistic', realistic, cfg.rounds, cfg.durationS);
    report.worst64k = await runRounds('64KiB', [worst], cfg.bigRounds, cfg.bigDurationS);
    if (verifyRedis !== undefined && redisClient !== undefined)
      report.redisVsEmbedded = await mixed(verify, verifyRedis, redisClient, `http://127.0.0.1:${redisAdmin}/metrics`);
    report.shadow = await shadow();

    // RSS over 1,000,000 verify requests (realistic bodies), per service process, in chunks (bounded in time).
    report.rss = [];
    for (const s of targets.slice(1)) {
      // A server that sat idle through the other's run has had its heap shrunk by V8's memory reducer: a short
      // load first, so "before" is the warm working set and the growth is what the 1M requests add.
      await load({ target: s.name, url: s.url, bodies: realistic, durationS: cfg.warmS });
      const before = rssMiB(s.pid);
      log(`${s.name}: ${cfg.amount.toLocaleString('en')} requests, RSS before ${before.toFixed(1)} MiB`);
      const checkpoints: number[] = [];
      let requests = 0;
      let non2xx = 0;
      let errors = 0;
      let seconds = 0;
      const deadline = Date.now() + cfg.maxAmountS * 1000;
      for (let c = 0; c < RSS_CHUNKS && Date.now() < deadline; c++) {
        const res = await load({
          target: s.name,
          url: s.url,
          bodies: realistic,
          amount: cfg.amount / RSS_CHUNKS,
          maxSeconds: Math.max(1, (deadline - Date.now()) / 1000),
        });
        requests += res.requests;
        non2xx += res.non2xx;
        errors += res.errors + res.timeouts;
        seconds += res.seconds;
        checkpoints.push(rssMiB(s.pid));
      }
      const after = rssMiB(s.pid);
      await new Promise((r) => setTimeout(r, 2000));
      const settled = rssMiB(s.pid);
      const half = checkpoints[Math.floor(checkpoints.length / 2) - 1] ?? before;
      log(
        `${s.name}: ${requests} requests in ${seconds.toFixed(0)} s (${(requests / seconds).toFixed(0)} req/s, non2xx ${non2xx}), RSS after ${after.toFixed(1)} MiB, 2 s later ${settled.toFixed(1)} MiB; per 10%: ${checkpoints.map((x) => x.toFixed(0)).join(' ')}`,
      );
      report.rss.push({
        target: s.name,
        requests,
        non2xx,
        errors,
        seconds,
        reqPerSec: requests / seconds,
        beforeMiB: before,
        afterMiB: after,
        settledMiB: settled,
        growthMiB: after - before,
        checkpointsMiB: checkpoints,
        secondHalfGrowthMiB: after - half,
      });
    }
  } finally {
    // The early returns (--shadow-only, --redis-vs-embedded) stop the meter's child too, or the bench never exits.
    if (shadowOnly || mixedOnly) await meter.finish();
    for (const s of servers.reverse()) await stopServer(s);
    if (redisClient !== undefined) {
      let deleted = 0;
      // Shadow keys carry their prefix as a Cluster hash tag: `{<runId>:…}`.
      for (const pattern of [`${runId}*`, `{${runId}*`]) deleted += await deleteMatching(redisClient, pattern);
      log(`Redis: deleted ${deleted} keys with prefix ${runId}`);
      report.redisCleanup = { prefix: runId, deletedKeys: deleted };
      await redisClient.quit();
    }
    rmSync(tmp, { recursive: true, force: true });
  }

  if (shadowOnly || mixedOnly) return;
  const full = { ...report, inProcess: await meter.finish() } as BenchReport;
  const met = targetsMet(full);
  full.targets = met;
  const md = renderMarkdown(full);
  process.stdout.write('\n' + md + '\n');
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}${quick ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(full, null, 2) + '\n');
  log(`wrote ${path.relative(repoRoot, file)}`);
  if (!quick) {
    writeLatestRun(path.join(repoRoot, 'docs', 'performance-bench.md'), md);
    log('wrote the latest run into docs/performance-bench.md');
  }
}

const BEGIN = '<!-- bench:begin (written by npm run bench) -->';
const END = '<!-- bench:end -->';

/** Replaces what stands between the page's bench markers, so the table there is always the latest full run. */
function writeLatestRun(page: string, md: string): void {
  const text = readFileSync(page, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${page} has no ${BEGIN} ... ${END} section`);
  // The report's own title would nest a second h1 inside the page: its headings move two levels down.
  const body = md.replace(/^(#{1,4}) /gm, '$1## ').trim();
  writeFileSync(page, `${text.slice(0, a + BEGIN.length)}\n${body}\n${text.slice(b)}`);
}

function summarize(results: LoadResult[], names: string[]) {
  const byTarget = Object.fromEntries(
    names.map((n) => {
      const rs = results.filter((r) => r.target === n);
      return [
        n,
        {
          rounds: rs.map((r) => r.reqPerSec),
          reqPerSec: median(rs.map((r) => r.reqPerSec)),
          p50Ms: median(rs.map((r) => r.p50Ms)),
          p99Ms: median(rs.map((r) => r.p99Ms)),
          non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
          errors: rs.reduce((a, r) => a + r.errors + r.timeouts, 0),
        },
      ];
    }),
  );
  // Ratio per round (each verify run against the bare run of the same round), then the median.
  const rounds = results.filter((r) => r.target === 'bare').length;
  const ratio = (n: string) => {
    const b = results.filter((r) => r.target === 'bare');
    const v = results.filter((r) => r.target === n);
    return median(Array.from({ length: rounds }, (_, i) => (v[i] as LoadResult).reqPerSec / (b[i] as LoadResult).reqPerSec));
  };
  return { byTarget, ratios: Object.fromEntries(names.filter((n) => n !== 'bare').map((n) => [n, ratio(n)])) };
}

/** The A/B alone: its table on stdout, its figures in bench/results/<date>-ab[-service]-<commit>[-quick].json. */
async function ab(rev: string): Promise<void> {
  const roundsAt = process.argv.indexOf('--rounds');
  const rounds = roundsAt < 0 ? undefined : Number(process.argv[roundsAt + 1]);
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 2)) {
    process.stderr.write('--rounds takes a whole number of rounds (2 or more)\n');
    process.exit(2);
  }
  const inProcess = argv.has('--in-process');
  const report = inProcess
    ? await runAb({ repoRoot, rev, quick, ownModels: argv.has('--own-models'), log })
    : await runServiceAb({ repoRoot, rev, quick, log, ...(rounds === undefined ? {} : { rounds }) });
  process.stdout.write('\n' + ('kind' in report ? renderServiceAb(report) : renderAb(report)) + '\n');
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(
    resultsDir,
    `${started.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}-ab${inProcess ? '' : '-service'}-${report.a.commit}${quick ? '-quick' : ''}.json`,
  );
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  log(`wrote ${path.relative(repoRoot, file)}`);
}

if (abRev !== undefined) await ab(abRev);
else if (maxWorkers !== undefined) {
  const report = await runWorkersBench(maxWorkers, quick, log);
  process.stdout.write('\n' + renderWorkersMarkdown(report) + '\n');
  log(`wrote ${writeWorkersResult(report)}`);
} else if (argv.has('--lists')) {
  // Only the allow and block lists' cost: an account with 10,000 block-list entries against one with none, in this one run.
  const { measureListsCost, renderListsCost } = await import('./lists.ts');
  process.stdout.write(`${renderListsCost(await measureListsCost(repoRoot, quick, log))}\n`);
} else if (argv.has('--accounts')) {
  // Only the per-account correction's cost: an account with one against one without, in this one run.
  const { measureAccountCost, renderAccountCost } = await import('./account-correction.ts');
  process.stdout.write(`${renderAccountCost(await measureAccountCost(repoRoot, quick, log))}\n`);
} else {
  await main();
}
