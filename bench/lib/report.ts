import type { InProcessFigures } from './in-process.ts';

interface TargetFigures {
  rounds: number[];
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface Scenario {
  byTarget: Record<string, TargetFigures>;
  /** verify / bare req/s: the median of the per-round ratios. */
  ratios: Record<string, number>;
}

export interface RssFigures {
  target: string;
  requests: number;
  non2xx: number;
  errors: number;
  seconds: number;
  reqPerSec: number;
  beforeMiB: number;
  afterMiB: number;
  settledMiB: number;
  growthMiB: number;
  /** RSS after each tenth of the requests. */
  checkpointsMiB: number[];
  /** after - RSS at the half-way checkpoint: growth once warm, the leak indicator. */
  secondHalfGrowthMiB: number;
}

export interface TargetCheck {
  name: string;
  goal: string;
  value: string;
  met: boolean;
}

import type { ShadowFigures } from './shadow-scenario.ts';
import { renderRedisVsEmbedded, type RedisVsEmbedded } from './redis-vs-embedded.ts';

export interface BenchReport {
  quick: boolean;
  date: string;
  machine: { nproc: number; cpu: string; memGiB: number; node: string; fastify: string; commit: string; dirty: boolean };
  config: Record<string, number>;
  inProcess: InProcessFigures;
  ready: { bareMs: number; verifyMs: number[]; verifyMedianMs: number; verifyRedisMs?: number };
  realistic: Scenario;
  worst64k: Scenario;
  rss: RssFigures[];
  /** Absent from runs before the shadow scenario existed. */
  shadow?: ShadowFigures;
  /** Redis mode against embedded on the mixed stream; absent from runs before it existed or without Redis. */
  redisVsEmbedded?: RedisVsEmbedded;
  redisCleanup?: { prefix: string; deletedKeys: number };
  targets?: TargetCheck[];
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : `${(100 * x).toFixed(1)}%`);

/** The performance targets, checked against this run's figures. */
export function targetsMet(r: BenchReport): TargetCheck[] {
  const out: TargetCheck[] = [];
  const v = r.realistic.byTarget.verify;
  out.push({
    name: 'embedded ratio',
    goal: 'verify ≥ 30% of bare req/s',
    value: pct(r.realistic.ratios.verify),
    met: (r.realistic.ratios.verify ?? 0) >= 0.3,
  });
  out.push({
    name: 'embedded p99',
    goal: 'p99 ≤ 10 ms at 50 connections',
    value: `${v?.p99Ms ?? 'n/a'} ms`,
    met: (v?.p99Ms ?? Infinity) <= 10,
  });
  if (r.realistic.byTarget['verify-redis'] !== undefined) {
    out.push({
      name: 'Redis ratio',
      goal: 'verify (Redis) ≥ 20% of bare req/s',
      value: pct(r.realistic.ratios['verify-redis']),
      met: (r.realistic.ratios['verify-redis'] ?? 0) >= 0.2,
    });
  }
  const one = r.inProcess.oneKb.infer;
  out.push({
    name: '1 KB featurize+infer',
    goal: 'median ≤ 50 µs',
    value: `${f1(one.medianUs)} µs (with the reasoning sentence: ${f1(r.inProcess.oneKb.classify.medianUs)} µs)`,
    met: one.medianUs <= 50,
  });
  const big = r.inProcess.worst64k.infer;
  out.push({
    name: '64 KiB featurize+infer',
    goal: '≤ 5 ms',
    value: `median ${f2(big.medianUs / 1000)} ms, p99 ${f2(big.p99Us / 1000)} ms`,
    met: big.p99Us <= 5000,
  });
  const mx = r.redisVsEmbedded;
  if (mx !== undefined) {
    out.push({
      name: 'Redis mode vs embedded',
      goal: 'Redis mode ≥ 75% of embedded req/s on the mixed stream (queue drain counted), no non-2xx',
      value: `${pct(mx.sustainedRatio)} (answered: ${pct(mx.ratio)}), non-2xx ${mx.redis.non2xx + mx.redis.errors}, p99 ${mx.redis.p99Ms} ms vs ${mx.embedded.p99Ms} ms`,
      met: mx.sustainedRatio >= 0.75 && mx.redis.non2xx + mx.redis.errors === 0,
    });
  }
  const readyMax = Math.max(...r.ready.verifyMs, r.ready.verifyRedisMs ?? 0);
  out.push({ name: 'start to ready', goal: '≤ 2 s', value: `${f0(readyMax)} ms (slowest start)`, met: readyMax <= 2000 });
  for (const x of r.rss) {
    const complete = x.requests >= (r.quick ? 0 : 1_000_000);
    out.push({
      name: `RSS growth (${x.target})`,
      goal: '< 50 MB over 1,000,000 requests',
      value: `${f1(x.growthMiB * 1.048576)} MB over ${x.requests.toLocaleString('en')} requests`,
      met: complete && x.growthMiB * 1.048576 < 50,
    });
  }
  return out;
}

export function renderMarkdown(r: BenchReport): string {
  const m = r.machine;
  const lines: string[] = [];
  lines.push('# Benchmark: `npm run bench`');
  lines.push('');
  lines.push('Written by `npm run bench` (bench/entries/run.ts); the raw figures are in bench/results/. The production service and a bare');
  lines.push(
    `Fastify ${m.fastify} POST route run as separate processes (the service as \`npm start\` runs it, \`node dist/server.js\` bundled by esbuild; the bare route with\n\`node --import tsx\`), loaded in alternating rounds`,
  );
  lines.push(
    `by autocannon in the bench process (${r.config.connections} connections, no pipelining; ${r.config.rounds} rounds × ${r.config.durationS} s with`,
  );
  lines.push(
    `realistic bodies, ${r.config.bigRounds} × ${r.config.bigDurationS} s with the 64 KiB body; figures are medians over rounds). The machine is shared`,
  );
  lines.push('and autocannon takes one of its cores, so absolute req/s move between runs: the ratio, measured round by round in');
  lines.push('the same run, is the figure to compare.');
  lines.push('');
  lines.push(`- Date: ${r.date}${r.quick ? ' (QUICK smoke run: too short to quote)' : ''}`);
  lines.push(`- Machine: ${m.nproc} cores (nproc), ${m.cpu}, ${m.memGiB} GiB; Node ${m.node}`);
  lines.push(`- Commit: ${m.commit}${m.dirty ? ' with uncommitted changes' : ''}; model ${r.inProcess.modelVersion}`);
  lines.push('- Service: NODE_ENV=production, LOG_LEVEL=info (one pino line per request, stdout to /dev/null), a tenants file whose');
  lines.push('  account limit (1e9 per 60 s, sliding) never triggers: the limiter counts every request and never rejects.');
  lines.push(
    '  Redis mode: REDIS_URL=redis://127.0.0.1:6379 (BENCH_REDIS_URL to change it; rate limit in Redis, review queue on: REVIEW_BAND 0.75, REVIEW_SAMPLE_RATE',
  );
  lines.push('  0.01, ingest worker in-process), BULLMQ_PREFIX unique to the run, its keys deleted afterwards.');
  lines.push(
    `- Realistic bodies: the ${r.config.bodies} submissions of 0.2-2 KB in data/forms/{legitimate,spam}.jsonl (${r.config.layouts} layouts, ${r.config.languages} languages) wrapped in`,
  );
  lines.push('  {apiKey, formId, payload} (every 5th as fieldData); 64 KiB body: exactly 65,536 bytes (= BODY_LIMIT) including the');
  lines.push('  envelope, a 4-field form whose message is all data/forms texts joined, space-padded to the byte.');
  lines.push('');
  lines.push('| scenario | target | req/s | p50 ms | p99 ms | verify / bare | non-2xx |');
  lines.push('|---|---|---:|---:|---:|---:|---:|');
  for (const [label, sc] of [
    ['realistic 0.2-2 KB', r.realistic],
    ['64 KiB body', r.worst64k],
  ] as const) {
    for (const [name, t] of Object.entries(sc.byTarget)) {
      lines.push(
        `| ${label} | ${name} | ${f0(t.reqPerSec)} | ${t.p50Ms} | ${t.p99Ms} | ${name === 'bare' ? '1' : pct(sc.ratios[name])} | ${t.non2xx + t.errors} |`,
      );
    }
  }
  lines.push('');
  if (r.redisVsEmbedded !== undefined) {
    lines.push(renderRedisVsEmbedded(r.redisVsEmbedded));
    lines.push('');
  }
  if (r.shadow !== undefined) {
    const sh = r.shadow;
    lines.push(
      `Shadow model (\`npm run models -- shadow\`): the same service${sh.redis ? ' in Redis mode' : ''} with a shadow model the size of the active one, against`,
    );
    lines.push(
      `none, in rounds whose order rotates. At the default SHADOW_SAMPLE_RATE ${sh.defaultRate} the shadow costs what the ratio falls short of 100%;`,
      'a second service without a shadow, measured the same way, shows how far two identical services differ in this run.',
    );
    lines.push('');
    lines.push('| target | req/s | p99 ms | / no shadow | CPU µs / request | / no shadow, by CPU | non-2xx |');
    lines.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const [name, t] of Object.entries(sh.byTarget)) {
      const labels: Record<string, string> = {
        'shadow-default': `shadow, rate ${sh.defaultRate}`,
        'shadow-all': 'shadow, rate 1',
        control: 'no shadow, a second service (the noise floor)',
      };
      const label = labels[name] ?? 'no shadow';
      const base = name === 'no-shadow';
      lines.push(
        `| ${label} | ${f0(t.reqPerSec)} | ${t.p99Ms} | ${base ? '1' : pct(sh.ratios[name])} | ${f0(t.cpuUsPerRequest)} | ${base ? '1' : pct(sh.cpuRatios?.[name])} | ${t.non2xx} |`,
      );
    }
    lines.push('');
  }
  const ip = r.inProcess;
  lines.push(
    'In-process cost, measured in a child process that loads only the classifier: the bench process itself loads its Redis client',
    "(ioredis) first, which makes V8 compile string loops slowly (see docs/performance.md); the service's own process is not",
    `affected. No load runs meanwhile: ${ip.chunks} chunks spread over the run (at the start and after every load round), each`,
    'alternating whole passes of featurize + infer (`classifier.spamProbability`: features, forward pass, calibration) and the',
    "route's whole call (`classifier.classify`: the same plus the reasoning sentence) over the same bodies; figures pool every",
    "chunk's calls.",
    '',
    '| in-process, per call | calls | featurize + infer median µs | p99 µs | + reasoning (`classify`) median µs | p99 µs |',
    '|---|---:|---:|---:|---:|---:|',
  );
  const row = (label: string, c: InProcessFigures['realistic']) =>
    lines.push(
      `| ${label} | ${c.infer.calls} | ${f1(c.infer.medianUs)} | ${f1(c.infer.p99Us)} | ${f1(c.classify.medianUs)} | ${f1(c.classify.p99Us)} |`,
    );
  row('all realistic bodies', ip.realistic);
  row(`~1 KB: the ${ip.oneKb.bodies} bodies nearest 1,024 B (${ip.oneKb.minBytes}-${ip.oneKb.maxBytes} B)`, ip.oneKb);
  row('64 KiB body', ip.worst64k);
  lines.push('');
  const spread = (xs: readonly number[]) => `${f1(Math.min(...xs))}-${f1(Math.max(...xs))} µs (in order: ${xs.map(f1).join(', ')})`;
  if (ip.adversarial.length > 0) {
    lines.push('');
    lines.push(
      `64 KiB bodies built to be slow (\`classify\`, ${ip.adversarial[0]?.classify.calls ?? 0} calls each, spread over the chunks; the prose 64 KiB body above for`,
    );
    lines.push('comparison): work that grew faster than the input would show here.');
    lines.push('');
    lines.push('| body (64 KiB) | median µs | max µs |');
    lines.push('|---|---:|---:|');
    for (const a of ip.adversarial) lines.push(`| ${a.id} | ${f1(a.classify.medianUs)} | ${f1(a.classify.maxUs)} |`);
    lines.push('');
  }
  lines.push(
    `The 1 KB median chunk by chunk: featurize + infer ${spread(ip.oneKb.chunkMediansUs.infer)}; with reasoning ${spread(ip.oneKb.chunkMediansUs.classify)}.`,
  );
  lines.push('');
  lines.push('| start → /readyz 200 | ms |');
  lines.push('|---|---:|');
  lines.push(`| service, embedded (${r.ready.verifyMs.length} cold starts) | ${r.ready.verifyMs.map(f0).join(' / ')} |`);
  if (r.ready.verifyRedisMs !== undefined) lines.push(`| service, Redis | ${f0(r.ready.verifyRedisMs)} |`);
  lines.push(`| bare route | ${f0(r.ready.bareMs)} |`);
  lines.push('');
  lines.push('"Before" is read after a short warm-up load (the server may have idled, and shrunk its heap, through the other');
  lines.push("server's run); growth is after − before.");
  lines.push('');
  lines.push(
    '| RSS over N verify requests | requests | req/s | non-2xx | before MiB | after MiB | 2 s later MiB | growth MB | 2nd-half growth MB | MiB after each 10% |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const x of r.rss) {
    lines.push(
      `| ${x.target} | ${x.requests.toLocaleString('en')} | ${f0(x.reqPerSec)} | ${x.non2xx + x.errors} | ${f1(x.beforeMiB)} | ${f1(x.afterMiB)} | ${f1(x.settledMiB)} | ${f1(x.growthMiB * 1.048576)} | ${f1(x.secondHalfGrowthMiB * 1.048576)} | ${x.checkpointsMiB.map(f0).join(' ')} |`,
    );
  }
  if (r.targets !== undefined) {
    lines.push('');
    lines.push('| target | goal | this run | met |');
    lines.push('|---|---|---|---|');
    for (const t of r.targets) lines.push(`| ${t.name} | ${t.goal} | ${t.value} | ${t.met ? 'yes' : '**no**'} |`);
  }
  lines.push('');
  return lines.join('\n');
}
