// npm run bench:redis-memory [-- --submissions 60000] [-- --concurrency 16] [-- --rate 0]
//                            [-- --maxmemory 64mb --maxmemory-policy noeviction]
// How much Redis memory the service takes as one account's traffic grows. Starts a redis-server of its own on a free
// loopback port (with the given maxmemory and policy, if any), builds and starts the service (`node dist/server.js`)
// against it with every setting at its default, and sends distinct realistic submissions (half spam: texts from
// data/forms with varied names, numbers and sign-offs) to one account whose rate limit never triggers. Every 5,000 it
// lets the review queue drain and samples INFO memory's used_memory. Prints the table, whether the last 20,000 added
// under 10 MB, the verify outcomes and review counters from /metrics (answered, queued, spooled, dropped), and the
// measured size of each per-account structure (MEMORY USAGE), which docs/operations.md's formula uses.
// Throughout the run two more accounts with real limits (3 and 100 a minute, fixed windows) are hit past them (one
// request a second, ten a second): the bench counts, per window, the answers 200 whose request was sent and answered
// within that window, and says whether any account got past its limit. At the end: what Redis evicted (INFO
// evicted_keys, and the service's own count of it), pending index entries whose item is gone, and spool lines left.
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { BENCH_API_KEY, BENCH_FORM_ID, BENCH_ORIGIN } from '../lib/bodies.ts';
import { freePort, startRedisServer, startServer, stopServer } from '../lib/processes.ts';
import { benchServiceEnv, writeBenchTenants, type LimitedBenchAccount } from '../lib/tenants.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
};
const SUBMISSIONS = Number(flag('submissions', '60000'));
const CONCURRENCY = Number(flag('concurrency', '16'));
/** Requests a second, 0 for as fast as the service answers. */
const RATE = Number(flag('rate', '0'));
const MAXMEMORY = flag('maxmemory', '');
const POLICY = flag('maxmemory-policy', '');
const SAMPLE_EVERY = 5_000;
const LAST = 20_000;
const LAST_BOUND_MB = 10;
const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** Accounts with a real limit, each hit past it throughout the run: one request every `everyMs`. */
const LIMITED: readonly (LimitedBenchAccount & { readonly everyMs: number })[] = [
  { id: 'limited-3', apiKey: 'bench-limited-3-not-secret', max: 3, windowSeconds: 60, everyMs: 1_000 },
  { id: 'limited-100', apiKey: 'bench-limited-100-not-secret', max: 100, windowSeconds: 60, everyMs: 100 },
];

interface Hit {
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly status: number;
}

/** Hits `account` every `everyMs` (a short genuine enquiry, numbered) until `stopped()`. */
async function hitLimited(url: string, account: (typeof LIMITED)[number], stopped: () => boolean): Promise<Hit[]> {
  const hits: Hit[] = [];
  const t0 = Date.now();
  for (let n = 0; !stopped(); n++) {
    const due = t0 + n * account.everyMs;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const sentAt = Date.now();
    const body = JSON.stringify({
      apiKey: account.apiKey,
      formId: `${account.id}-form`,
      payload: { name: 'Ada Lovelace', email: 'ada@example.org', message: `Hello, are you open on Saturday mornings? (${n})` },
    });
    const res = await fetch(`${url}/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
      body,
    }).catch(() => undefined);
    await res?.arrayBuffer();
    hits.push({ sentAt, answeredAt: Date.now(), status: res?.status ?? 0 });
  }
  return hits;
}

/**
 * Answers 200 per fixed window of the limit: `mostAllowed` counts those sent and answered within one window (so
 * certainly counted in it); one whose request straddled a window's end may have been counted in either, and is added to
 * both in `mostPossible`.
 */
function limitHeld(hits: readonly Hit[], account: LimitedBenchAccount) {
  const windowMs = account.windowSeconds * 1000;
  const windows = new Map<number, { certain: number; straddling: number }>();
  const at = (i: number): { certain: number; straddling: number } => {
    const w = windows.get(i) ?? { certain: 0, straddling: 0 };
    windows.set(i, w);
    return w;
  };
  const statuses: Record<string, number> = {};
  for (const h of hits) {
    statuses[h.status] = (statuses[h.status] ?? 0) + 1;
    const a = Math.floor(h.sentAt / windowMs);
    const b = Math.floor(h.answeredAt / windowMs);
    at(a);
    if (h.status !== 200) continue;
    if (a === b) at(a).certain++;
    else for (let i = a; i <= b; i++) at(i).straddling++;
  }
  const counts = [...windows.values()];
  const mostAllowed = Math.max(0, ...counts.map((c) => c.certain));
  const mostPossible = Math.max(0, ...counts.map((c) => c.certain + c.straddling));
  return {
    account: account.id,
    limit: `${account.max} per ${account.windowSeconds} s (fixed)`,
    requests: hits.length,
    statuses,
    windows: windows.size,
    allowedPerWindow: [...windows].sort(([x], [y]) => x - y).map(([, c]) => c.certain + c.straddling),
    mostAllowed,
    mostPossible,
    held: mostAllowed <= account.max,
  };
}

/** Pending index entries whose item key is gone (evicted, or lost with a restart). */
async function danglingPending(redis: Redis): Promise<{ entries: number; missing: number }> {
  const base = 'formguard:review:{bench}';
  const ids = await redis.zrange(`${base}:pending`, '0', '-1');
  let missing = 0;
  for (let i = 0; i < ids.length; i += 1000) {
    const pipe = redis.pipeline();
    for (const id of ids.slice(i, i + 1000)) pipe.exists(`${base}:item:${id}`);
    for (const [, n] of (await pipe.exec()) ?? []) if (n === 0) missing++;
  }
  return { entries: ids.length, missing };
}

/** Lines waiting in the service's spool (flagged submissions not yet in Redis). */
function spoolLines(spoolDir: string): number {
  if (!existsSync(spoolDir)) return 0;
  let n = 0;
  for (const f of readdirSync(spoolDir).filter((f) => f.endsWith('.jsonl')))
    n += readFileSync(path.join(spoolDir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '').length;
  return n;
}

interface Row {
  readonly label: string;
  readonly fields: Record<string, unknown>;
}

/** Every hand-written submission in data/forms, spam and legitimate apart. */
function loadRows(): { spam: Row[]; legit: Row[] } {
  const spam: Row[] = [];
  const legit: Row[] = [];
  const dir = path.join(repoRoot, 'data', 'forms');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as Row;
      const bytes = JSON.stringify(row.fields).length;
      if (bytes < 100 || bytes > 4_000) continue;
      (row.label === 'spam' ? spam : legit).push(row);
    }
  }
  return { spam, legit };
}

const FIRST = [
  'Ada',
  'Ben',
  'Chloé',
  'Dmitri',
  'Emma',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kofi',
  'Lena',
  'Mateo',
  'Nora',
  'Omar',
  'Priya',
];
const LAST_NAMES = [
  'Lovelace',
  'Okafor',
  'Schmidt',
  'Tanaka',
  'García',
  'Novak',
  'Haddad',
  'Larsen',
  'Rossi',
  'Kowalski',
  'Silva',
  'Murphy',
];

/** A deterministic pseudo-random sequence, so runs send the same stream. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Submission i: a row of its half (spam for odd i), its digits redrawn, a name and a sign-off of its own: a distinct text. */
function submission(i: number, rows: { spam: Row[]; legit: Row[] }, rand: () => number): string {
  const pool = i % 2 === 1 ? rows.spam : rows.legit;
  const row = pool[Math.floor(rand() * pool.length)] as Row;
  const name = `${FIRST[Math.floor(rand() * FIRST.length)]} ${LAST_NAMES[Math.floor(rand() * LAST_NAMES.length)]}`;
  const phone = `+44 7${String(Math.floor(rand() * 1e9)).padStart(9, '0')}`;
  const fields: Record<string, unknown> = {};
  let longest = '';
  for (const [k, v] of Object.entries(row.fields)) {
    const value = typeof v === 'string' ? v.replace(/\d/g, () => String(Math.floor(rand() * 10))) : v;
    fields[k] = /name/i.test(k) && typeof value === 'string' ? name : value;
    if (typeof value === 'string' && value.length > (typeof fields[longest] === 'string' ? (fields[longest] as string).length : -1))
      longest = k;
  }
  if (longest !== '') fields[longest] = `${fields[longest] as string}\n${name}, ${phone} (#${i})`;
  else fields.message = `${name}, ${phone} (#${i})`;
  return JSON.stringify({ apiKey: BENCH_API_KEY, formId: BENCH_FORM_ID, payload: fields });
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN);
}

/**
 * Waits (up to 60 s) until the review queue holds no job waiting or being ingested, the service holds none in memory
 * (flagged and look-up writes go from its memory to the store in batches) and its spool is empty (jobs spooled while
 * its circuit breaker was open are sent again every 5 s), so a sample holds no backlog.
 */
async function drained(queue: Queue, spoolDir: string, adminUrl: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const c = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
    const spooled = existsSync(spoolDir) ? readdirSync(spoolDir).filter((f) => f.endsWith('.jsonl')).length : 0;
    const text = await (await fetch(`${adminUrl}/metrics`)).text();
    const waiting = [...text.matchAll(/^formguard_review_(?:lookup_)?waiting (\S+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
    if (spooled === 0 && waiting === 0 && Object.values(c).every((n) => n === 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** How many entries the account's capped structures hold: pending items, kept fields, look-up verdicts, search lines. */
async function held(redis: Redis): Promise<{ pending: number; kept: number; seen: number; search: number }> {
  const base = 'formguard:review:{bench}';
  const [pending, kept, seen, search] = await Promise.all([
    redis.zcard(`${base}:pending`),
    redis.hlen(`${base}:kept`),
    redis.hlen(`${base}:seen`),
    redis.hlen(`${base}:search`),
  ]);
  return { pending, kept, seen, search };
}

/** The service's counters from /metrics: verify outcomes and the review counters. */
async function counters(adminUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m =
      /^(formguard_(?:verify_requests_total|review_\w+_total|redis_\w+_total|redis_writes_refused|rate_limit_restored_total))(\{[^}]*\})? (\d+(?:\.\d+)?)$/.exec(
        line,
      );
    if (m !== null) out[`${m[1]}${m[2] ?? ''}`] = Number(m[3]);
  }
  return out;
}

/** MEMORY USAGE of every key of the account, summed by kind (the key name with ids and hashes taken out). */
async function breakdown(redis: Redis): Promise<{ kind: string; keys: number; bytes: number; entries: number }[]> {
  const byKind = new Map<string, { keys: number; bytes: number; entries: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const kind = key
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
        .replace(/:fingerprint:[0-9a-f]+/, ':fingerprint:<hash>')
        .replace(/:traffic:\d{4}-\d{2}-\d{2}/, ':traffic:<day>')
        .replace(/:\d+$/, ':<n>');
      const bytes = Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
      const type = await redis.type(key);
      const entries =
        type === 'hash'
          ? await redis.hlen(key)
          : type === 'zset'
            ? await redis.zcard(key)
            : type === 'set'
              ? await redis.scard(key)
              : type === 'list'
                ? await redis.llen(key)
                : 1;
      const k = byKind.get(kind) ?? { keys: 0, bytes: 0, entries: 0 };
      byKind.set(kind, { keys: k.keys + 1, bytes: k.bytes + bytes, entries: k.entries + entries });
    }
  } while (cursor !== '0');
  return [...byKind].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.bytes - a.bytes);
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fg-redis-memory-'));
  console.log('building dist/ (npm run build) …');
  execSync('npm run build', { cwd: repoRoot, stdio: 'inherit' });
  const redisServer = await startRedisServer(work, [
    ...(MAXMEMORY === '' ? [] : ['--maxmemory', MAXMEMORY]),
    ...(POLICY === '' ? [] : ['--maxmemory-policy', POLICY]),
  ]);
  const redis = new Redis(redisServer.url);
  const port = await freePort();
  const adminPort = await freePort();
  const tenantsFile = writeBenchTenants(work, LIMITED);
  const service = await startServer({
    name: 'service',
    entry: 'dist/server.js',
    cwd: repoRoot,
    env: benchServiceEnv(port, tenantsFile, {
      REDIS_URL: redisServer.url,
      ADMIN_PORT: String(adminPort),
      REVIEW_SPOOL_DIR: path.join(work, 'spool'),
    }),
    port,
    readyPath: '/readyz',
    stderrFile: path.join(work, 'service.stderr'),
    timeoutMs: 60_000,
  });
  const queueRedis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  const queue = new Queue('review', { connection: queueRedis, prefix: 'formguard' });
  const rows = loadRows();
  const rand = lcg(33);
  const baseline = await usedMemory(redis);
  const samples: { sent: number; usedMemory: number; seconds: number; held: Awaited<ReturnType<typeof held>> }[] = [
    { sent: 0, usedMemory: baseline, seconds: 0, held: await held(redis) },
  ];
  const spoolDir = path.join(work, 'spool');
  const statuses = new Map<number, number>();
  const t0 = Date.now();
  let sent = 0;
  console.log(
    `redis ${redisServer.url}${MAXMEMORY === '' ? '' : ` maxmemory ${MAXMEMORY}`}${POLICY === '' ? '' : ` ${POLICY}`}; ` +
      `${SUBMISSIONS} submissions, concurrency ${CONCURRENCY}${RATE > 0 ? `, ${RATE}/s` : ''}`,
  );
  let stopLimited = false;
  const limitedRuns = LIMITED.map((a) => hitLimited(service.url, a, () => stopLimited));
  try {
    for (let from = 0; from < SUBMISSIONS; from += SAMPLE_EVERY) {
      const to = Math.min(SUBMISSIONS, from + SAMPLE_EVERY);
      const bodies = Array.from({ length: to - from }, (_, j) => submission(from + j, rows, rand));
      let next = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (;;) {
            const j = next++;
            if (j >= bodies.length) return;
            if (RATE > 0) {
              const due = started + (j * 1000) / RATE;
              if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
            }
            const res = await fetch(`${service.url}/v1/verify`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
              body: bodies[j] as string,
            }).catch(() => undefined);
            const status = res?.status ?? 0;
            await res?.arrayBuffer();
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      sent = to;
      await drained(queue, spoolDir, `http://127.0.0.1:${adminPort}`);
      samples.push({ sent, usedMemory: await usedMemory(redis), seconds: (Date.now() - t0) / 1000, held: await held(redis) });
      const s = samples.at(-1) as (typeof samples)[number];
      console.log(
        `  ${String(sent).padStart(6)} sent  used_memory ${(s.usedMemory / 1e6).toFixed(1)} MB  ` +
          `pending ${s.held.pending} kept ${s.held.kept} seen ${s.held.seen} search ${s.held.search}  (${s.seconds.toFixed(0)} s)`,
      );
    }
    stopLimited = true;
    const limited = (await Promise.all(limitedRuns)).map((hits, i) => limitHeld(hits, LIMITED[i] as (typeof LIMITED)[number]));
    // The service reads INFO every 10 s: one more read, so its eviction count covers the whole run.
    await new Promise((r) => setTimeout(r, 11_000));
    const metrics = await counters(`http://127.0.0.1:${adminPort}`);
    const evictedKeys = Number(/^evicted_keys:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? NaN);
    const dangling = await danglingPending(redis);
    const spoolLeft = spoolLines(spoolDir);
    const parts = await breakdown(redis);

    console.log(
      '\n| submissions | used_memory (MB) | added per submission since the last row (bytes) | pending | kept fields | look-up verdicts | search lines |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (let i = 1; i < samples.length; i++) {
      const [a, b] = [samples[i - 1], samples[i]] as [(typeof samples)[number], (typeof samples)[number]];
      console.log(
        `| ${b.sent.toLocaleString('en')} | ${(b.usedMemory / 1e6).toFixed(1)} | ${Math.round((b.usedMemory - a.usedMemory) / (b.sent - a.sent))} | ` +
          `${b.held.pending} | ${b.held.kept} | ${b.held.seen} | ${b.held.search} |`,
      );
    }
    const end = samples.at(-1) as (typeof samples)[number];
    const atLast = samples.find((s) => s.sent === end.sent - LAST);
    if (atLast !== undefined) {
      const addedMb = (end.usedMemory - atLast.usedMemory) / 1e6;
      console.log(
        `\nthe last ${LAST.toLocaleString('en')} submissions added ${addedMb.toFixed(2)} MB: ${addedMb < LAST_BOUND_MB ? 'under' : 'NOT under'} ${LAST_BOUND_MB} MB`,
      );
    }
    console.log(`HTTP statuses: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    console.log('\naccounts with a real limit, hit past it throughout:');
    for (const l of limited)
      console.log(
        `  ${l.account} (${l.limit}): ${l.requests} requests, answers ${JSON.stringify(l.statuses)}; over ${l.windows} windows at most ` +
          `${l.mostAllowed} allowed in one (${l.mostPossible} counting requests that straddled a window's end): ` +
          `${l.held ? 'limit held' : 'PAST ITS LIMIT'}; per window ${l.allowedPerWindow.join(' ')}`,
      );
    console.log(
      `\nRedis evicted ${evictedKeys} keys (INFO evicted_keys); pending index ${dangling.entries} entries, ${dangling.missing} of them ` +
        `without their item; ${spoolLeft} lines left in the spool`,
    );
    console.log('\nfrom /metrics:');
    for (const [name, value] of Object.entries(metrics)) console.log(`  ${name} ${value}`);
    console.log(
      '\nper structure (MEMORY USAGE, SAMPLES 0):\n| key | keys | entries | bytes | bytes per entry |\n|---|---:|---:|---:|---:|',
    );
    for (const p of parts.slice(0, 30))
      console.log(`| \`${p.kind}\` | ${p.keys} | ${p.entries} | ${p.bytes} | ${p.entries > 0 ? Math.round(p.bytes / p.entries) : ''} |`);
    const file = path.join(repoRoot, 'bench', 'results', `redis-memory-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          submissions: SUBMISSIONS,
          concurrency: CONCURRENCY,
          rate: RATE,
          maxmemory: MAXMEMORY,
          policy: POLICY,
          samples,
          statuses: Object.fromEntries(statuses),
          limited,
          evictedKeys,
          dangling,
          spoolLeft,
          metrics,
          parts,
          loadavg: os.loadavg(),
        },
        null,
        2,
      ),
    );
    console.log(`\nwritten: ${path.relative(repoRoot, file)}`);
  } finally {
    stopLimited = true;
    await Promise.allSettled(limitedRuns);
    await queue.close();
    queueRedis.disconnect();
    await stopServer(service);
    redis.disconnect();
    await redisServer.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
