// Profiles the service under the bench's realistic load: `npx tsx bench/entries/profile.ts [seconds] [--redis] [--bundle[=<tree>]]`.
// Starts `node --cpu-prof --import tsx service/server.ts` (with --bundle: `node --cpu-prof dist/server.js` of this tree
// or of another built checkout, as `npm start` runs it), loads it, stops it with SIGTERM (the profile is written at
// exit) and prints self time by function, by source file and by area. Bundled code is mapped back to its source file
// through the `// path/file.ts` comments esbuild writes at each module's start. Not part of `npm run bench`.
// BENCH_REDIS_URL: the Redis for --redis (default redis://127.0.0.1:6379).
// --distinct: every request's text made distinct (bodies.ts distinctBodies), as the mixed stream of `npm run bench`
// sends it, so Redis mode stores and indexes every submission instead of merging repeats into campaigns.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distinctBodies, realisticBodies } from '../lib/bodies.ts';
import { writeBenchTenants } from '../lib/tenants.ts';
import { load } from '../lib/load.ts';
import { freePort, startServer, stopServer } from '../lib/processes.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const seconds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10);
const redis = process.argv.includes('--redis');
const bare = process.argv.includes('--bare');
const entryArg = process.argv.find((a) => a.startsWith('--entry='))?.slice('--entry='.length);
const bundleArg = process.argv.find((a) => a === '--bundle' || a.startsWith('--bundle='));
const bundleTree = bundleArg === undefined ? undefined : path.resolve(bundleArg.slice('--bundle='.length) || repoRoot);
const warmS = 3;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'formguard-prof-'));
const tenantsFile = writeBenchTenants(tmp);
const port = await freePort();
const prefix = `fgprof-${process.pid}`;
const s = await startServer({
  name: 'verify',
  entry: entryArg ?? (bare ? 'bench/children/bare-server.ts' : bundleTree !== undefined ? 'dist/server.js' : 'service/server.ts'),
  cwd: bundleTree ?? repoRoot,
  env: {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    PORT: String(port),
    ADMIN_PORT: '0',
    TENANTS_FILE: tenantsFile,
    ...(redis
      ? {
          REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
          BULLMQ_PREFIX: prefix,
          RATE_LIMIT_PREFIX: `${prefix}:rl`,
          REVIEW_SPOOL_DIR: path.join(tmp, 'spool'),
        }
      : {}),
  },
  port,
  readyPath: entryArg === undefined ? '/readyz' : '/healthz',
  stderrFile: path.join(tmp, 'stderr'),
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${tmp}`],
});
// Warm first, then profile only the measured load: start-up compilation stays out of the shares.
const bodies = realisticBodies(repoRoot).filter((b) => b.bytes >= 512);
const next = process.argv.includes('--distinct') ? distinctBodies(bodies) : undefined;
await load({ target: 'verify', url: s.url, bodies, durationS: warmS, ...(next === undefined ? {} : { next }) });
await fetch(`${s.url}/readyz`);
const r = await load({ target: 'verify', url: s.url, bodies, durationS: seconds, ...(next === undefined ? {} : { next }) });
console.log(`${r.reqPerSec.toFixed(0)} req/s, p99 ${r.p99Ms} ms, ${r.requests} requests`);
await stopServer(s);
// The main thread's profile (thread id 0); tsx's loader thread writes another.
const file = readdirSync(tmp).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
if (file === undefined) throw new Error('no profile written');
const prof = JSON.parse(readFileSync(path.join(tmp, file), 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
// Only the samples of the measured load: those within `seconds` before the last busy sample (shutdown excluded).
const at: number[] = [];
prof.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
const idleIds = new Set(prof.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
let lastBusy = 0;
prof.samples.forEach((id, i) => {
  if (!idleIds.has(id) && (byId.get(id) as Node).callFrame.url.includes('server.js')) lastBusy = at[i] as number;
});
prof.samples.forEach((id, i) => {
  const t = at[i] as number;
  if (t > lastBusy || t < lastBusy - seconds * 1e6) return;
  self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});
// Bundled code: line → source file, from esbuild's `// path/file.ts` comments at each module's start.
const sourceOf = new Map<string, Array<[number, string]>>();
const sourceFile = (url: string, line: number): string | undefined => {
  if (!url.endsWith('.js') || !url.includes('/dist/')) return undefined;
  let marks = sourceOf.get(url);
  if (marks === undefined) {
    marks = [];
    readFileSync(url.replace(/^file:\/\//, ''), 'utf8')
      .split('\n')
      .forEach((l, i) => {
        const m = /^\/\/ ((?:core|service)\/\S+\.ts)$/.exec(l);
        if (m) (marks as Array<[number, string]>).push([i, m[1] as string]);
      });
    sourceOf.set(url, marks);
  }
  let found: string | undefined;
  for (const [from, f] of marks) if (from <= line) found = f;
  return found;
};
const total = [...self.values()].reduce((a, b) => a + b, 0);
const agg = (key: (n: Node) => string) => {
  const m = new Map<string, number>();
  for (const [id, t] of self) {
    const k = key(byId.get(id) as Node);
    m.set(k, (m.get(k) ?? 0) + t);
  }
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 60)
    .map(([k, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}% ${(t / r.requests).toFixed(2).padStart(7)} µs/req  ${k}`)
    .join('\n');
};
const shortUrl = (u: string) =>
  u
    .replace(/^file:\/\//, '')
    .replace((bundleTree ?? repoRoot) + '/', '')
    .replace(repoRoot + '/', '')
    .replace(/.*node_modules\//, 'nm/');
const nodeSource = (n: Node) => sourceFile(n.callFrame.url, n.callFrame.lineNumber);
const short = (u: string) => shortUrl(u);
console.log(
  '--- self time by function\n' +
    agg((n) => `${n.callFrame.functionName || '(anon)'} ${nodeSource(n) ?? short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`),
);
console.log('--- self time by file\n' + agg((n) => nodeSource(n) ?? (short(n.callFrame.url) || `(${n.callFrame.functionName})`)));
// Inclusive: each sample goes to the first category found walking from the leaf to the root.
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const category = (id: number): string => {
  const leaf = byId.get(id) as Node;
  if (['(idle)', '(garbage collector)', '(program)'].includes(leaf.callFrame.functionName)) return leaf.callFrame.functionName;
  // The kernel's share of sending an answer (loopback TCP), whoever called it.
  if (['writev', 'writeUtf8String', 'writeBuffer'].includes(leaf.callFrame.functionName)) return 'socket writes (kernel)';
  const leafUrl = short(leaf.callFrame.url);
  if (leafUrl.includes('secure-json-parse') || leafUrl.includes('fast-json-stringify') || leaf.callFrame.functionName === 'parse')
    return 'JSON parse + serialize';
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur) as Node;
    const u = nodeSource(n) ?? short(n.callFrame.url);
    if (u.startsWith('core/classifier/reasoning') || u.startsWith('core/classifier/attribution'))
      return 'classifier: scoring + reasoning (attribution, reasoning)';
    if (u.startsWith('core/features/')) return 'features: featurisation (core/features)';
    if (u.startsWith('core/classifier/')) return 'classifier: other';
  }
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur) as Node;
    const u = nodeSource(n) ?? short(n.callFrame.url);
    if (u.includes('pino') || u.includes('sonic-boom')) return 'pino logging';
    if (u.includes('prom-client')) return 'prom-client metrics';
    if (u.includes('nm/bullmq')) return 'bullmq';
    if (u.includes('nm/ioredis') || u.includes('nm/@ioredis') || u.includes('redis-parser')) return 'ioredis';
    if (u.startsWith('service/')) return `service: ${u.split('/').slice(1, 3).join('/')}`;
  }
  return 'node + fastify + other';
};
const cats = new Map<string, number>();
for (const [id, t] of self) cats.set(category(id), (cats.get(category(id)) ?? 0) + t);
const perReqUs = (t: number) => t / r.requests;
console.log('--- inclusive by category (µs of CPU per request, % of samples)');
for (const [k, t] of [...cats.entries()].sort((a, b) => b[1] - a[1]))
  console.log(`${perReqUs(t).toFixed(1).padStart(7)} µs ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
console.log(`profile: ${path.join(tmp, file)}`);
