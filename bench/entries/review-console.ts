// npm run bench:review [-- --items 100000]
// The moderator console at scale: one account with N pending items (100,000 by default) in a Redis of its own prefix
// (BENCH_REDIS_URL, default redis://127.0.0.1:6379; every key is deleted afterwards). Times the console's own routes
// through the real app (app.inject: routing, session check, Redis, JSON) — list pages, counts, search, the bulk preview —
// and reports the Redis memory the items and the search index take. Figures, not a test: nothing here asserts a time.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Classifier } from '../../core/classifier/types.ts';
import { buildApp } from '../../service/app.ts';
import { CSRF_HEADER } from '../../service/review/console/routes.ts';
import type { ReviewJob } from '../../service/review/intake/job-schema.ts';
import { startReview } from '../../service/review/setup.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { parseTenants } from '../../service/tenants/load.ts';
import { deleteMatching } from '../lib/redis-keys.ts';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--items') + 1] ?? 0) || 100_000;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUNS = 25;
const TOKEN = randomBytes(24).toString('base64url');
const prefix = `fgbench-console-${randomBytes(4).toString('hex')}`;
const log = (msg: string) => process.stdout.write(`[bench:review] ${msg}\n`);

// A vocabulary with a long tail (Zipf-like): a few words in most messages, most words in few.
const VOCAB = Array.from({ length: 6000 }, (_, i) => `w${i.toString(36)}${'abcdefghij'[i % 10]}`);
const COMMON = ['hello', 'please', 'offer', 'price', 'contact', 'website', 'free', 'service'];
function message(i: number): string {
  const words: string[] = [COMMON[i % COMMON.length]!];
  const n = 12 + (i % 20);
  for (let w = 0; w < n; w++)
    words.push(VOCAB[Math.min(VOCAB.length - 1, Math.floor(1 / (Math.random() + 1e-4)) * (1 + (w % 7)) + ((i * 7 + w) % 40))]!);
  if (i % 1000 === 0) words.push('heliotrope');
  return words.join(' ');
}

const classifier: Classifier = {
  modelVersion: 'bench',
  featureVersion: 'bench',
  classify: () => ({ status: 'legitimate', spamProbability: 0.1, confidence: 0.9, signals: [], reasoning: 'bench', modelVersion: 'bench' }),
  score: () => ({ status: 'legitimate', spamProbability: 0.1, confidence: 0.9, modelVersion: 'bench' }),
};

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  return { median: at(50), p95: at(95), max: s[s.length - 1]! };
}

async function main(): Promise<void> {
  const spool = await mkdtemp(path.join(os.tmpdir(), 'fg-bench-console-'));
  const tenants = {
    current: parseTenants(
      JSON.stringify({
        accounts: [
          {
            id: 'bench',
            apiKeys: [{ id: 'k', sha256: sha256Hex('bench-console-key-0123456789') }],
            forms: ['contact', 'quote', 'newsletter'].map((id) => ({ id, allowedReferrers: ['example.com'] })),
            moderators: [{ id: 'mo', sha256: sha256Hex(TOKEN) }],
          },
        ],
      }),
      'bench',
    ),
  };
  const silent = pino({ level: 'silent' });
  const review = startReview({
    env: {
      REDIS_URL,
      REVIEW_BAND: 0.75,
      REVIEW_SAMPLE_RATE: 0,
      REVIEW_RETENTION_DAYS: 30,
      REVIEW_KEEP_FIELDS_DAYS: 3,
      REVIEW_SPOOL_DIR: spool,
      REVIEW_SPOOL_MAX_BYTES: 1 << 20,
      REVIEW_MAX_FIELD_BYTES: 16_384,
      // No pending cap: the bench is the console over this many items.
      REVIEW_MAX_PENDING: 0,
      BULLMQ_PREFIX: prefix,
    },
    log: silent,
    moderators: tenants,
    registry: new Registry(),
    worker: false,
  });
  const app = await buildApp({
    tenants,
    classifier,
    maxEventLoopDelayMs: 0,
    reviewSink: review.sink,
    reviewRoutes: review.routes,
    reviewTraffic: review.traffic,
  });
  await app.ready();
  const redis = new Redis(REDIS_URL);
  try {
    const before = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    log(`filling ${N.toLocaleString()} pending items into one account (prefix ${prefix}) …`);
    const t0 = Date.now();
    const start = Date.now() - 20 * 86_400_000;
    let probe: ReviewJob | undefined;
    const CONCURRENCY = 256;
    for (let i = 0; i < N; i += CONCURRENCY) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(N, i + CONCURRENCY); j++) {
        const spam = j % 3 !== 0;
        const job: ReviewJob = {
          submissionId: randomUUID(),
          accountId: 'bench',
          formId: ['contact', 'quote', 'newsletter'][j % 3]!,
          receivedAt: new Date(start + Math.floor((j / N) * 19 * 86_400_000)).toISOString(),
          origin: 'example.com',
          fields: { name: `Sender ${j}`, email: `sender${j}@mail${j % 50}.example`, message: message(j) },
          truncated: false,
          verdict: {
            status: spam ? 'spam' : 'legitimate',
            confidence: spam ? 0.5 + ((j * 7919) % 500) / 1000 : 0.5 + ((j * 104729) % 250) / 1000,
            reasoning: 'bench',
            modelVersion: 'bench',
          },
        };
        if (j === Math.floor(N / 2)) probe = job;
        batch.push(review.store.items.ingest(job));
      }
      await Promise.all(batch);
    }
    const fillS = (Date.now() - t0) / 1000;
    const after = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    const searchBytes = Number(await redis.memory('USAGE', review.store.keys.forAccount('bench').search(), 'SAMPLES', '0'));
    log(
      `filled in ${fillS.toFixed(1)} s; Redis memory +${((after - before) / 2 ** 20).toFixed(1)} MiB in all (${((after - before) / N).toFixed(0)} B per item), of which the search lines ${(searchBytes / 2 ** 20).toFixed(1)} MiB (${(searchBytes / N).toFixed(0)} B per item)`,
    );

    const signIn = await app.inject({
      method: 'POST',
      url: '/review/api/session',
      headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' },
      payload: { token: TOKEN },
    });
    const cookie = `fg_review=${signIn.cookies.find((c) => c.name === 'fg_review')!.value}`;
    const mid = new Date(start + 9 * 86_400_000).toISOString();
    const end = new Date(start + 12 * 86_400_000).toISOString();
    const cases: [string, string][] = [
      ['list: first page (100, oldest first) + counts', '/review/api/list?limit=100'],
      ['list: page 500 (offset 49,900)', '/review/api/list?limit=100&offset=49900'],
      ['list: newest first, one form, spam only', '/review/api/list?limit=100&sort=newest&form=quote&status=spam'],
      ['list: most confident first', '/review/api/list?limit=100&sort=confidence-high'],
      ['list: date range (3 days) by confidence', `/review/api/list?limit=100&sort=confidence-high&from=${mid}&to=${end}`],
      ['counts (GET /api/me)', '/review/api/me'],
      ['search: a word in 1 of 8 items', '/review/api/list?limit=100&q=offer'],
      ['search: a rare word (1 in 1,000)', '/review/api/list?limit=100&q=heliotrope'],
      ['search: two words (a common and a rare one)', '/review/api/list?limit=100&q=hello%20heliotrope'],
      ['search: an e-mail address', `/review/api/list?limit=100&q=${encodeURIComponent(probe!.fields.email as string)}`],
      ['bulk preview: spam >= 0.99, all forms', '/review/api/bulk/confirm?min=0.99'],
      ['bulk preview: spam >= 0.9, one form', '/review/api/bulk/confirm?min=0.9&form=quote'],
    ];
    const rows: string[] = [];
    for (const [name, url] of cases) {
      const times: number[] = [];
      let body = '';
      for (let r = 0; r < RUNS + 3; r++) {
        const t = process.hrtime.bigint();
        const res = await app.inject({ method: 'GET', url, headers: { cookie } });
        const ms = Number(process.hrtime.bigint() - t) / 1e6;
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
        if (r >= 3) times.push(ms);
        body = res.body;
      }
      const s = stats(times);
      const j = JSON.parse(body) as { total?: number; matching?: number; rows?: unknown[] };
      const what =
        j.total !== undefined
          ? `total ${j.total.toLocaleString()}, ${j.rows?.length} rows`
          : j.matching !== undefined
            ? `matching ${j.matching.toLocaleString()}`
            : '';
      rows.push(`| ${name} | ${s.median.toFixed(1)} | ${s.p95.toFixed(1)} | ${s.max.toFixed(1)} | ${what} |`);
      log(`${name}: median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms (${what})`);
    }
    process.stdout.write(
      `\n${N.toLocaleString()} pending items, one account, ${RUNS} runs each (after 3 warm-up runs), through app.inject:\n\n`,
    );
    process.stdout.write('| request | median ms | p95 ms | max ms | answer |\n|---|---|---|---|---|\n' + rows.join('\n') + '\n');
  } finally {
    await app.close();
    await review.close();
    await deleteMatching(redis, `${prefix}:*`);
    redis.disconnect();
    await rm(spool, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
