// npx tsx bench/experiments/ingest-cost.ts [--base <rev>] [--rounds N] [--jobs N] [--max-pending N] [--near-members N] [--unique] [--model]
// What storing one flagged submission (ItemStore.ingestMany, in batches of INGEST_BATCH as the sink sends them) and
// keeping one unqueued submission for look-up (remember) cost: CPU time per submission of this process (building the
// call, ioredis, the socket) and of a private redis-server (the scripts), read from /proc around each round. The
// submissions are the mixed stream's (bench/lib/bodies.ts distinctBodies), to one account with the service's default
// caps, after a warm-up that fills the account to its caps (pending items, near-duplicate leaders and members), so each
// ingest also evicts as it does in a long run. With --base <rev>, that revision's store (a temporary worktree) runs in
// alternating rounds against this checkout's, each on its own key prefix: a before/after in one run.
// --max-pending 0 (no pending cap: no evictions) and --near-members 0 (no grouping step) take a part of the work away,
// to see what it costs. --model: each submission's verdict is the newest model's in models/ (flagged: spam, or
// legitimate under REVIEW_BAND; the rest are the look-up writes), so confidences are as the service gives them, which
// decides what a full queue sheds; without it every flagged one is spam at 0.97. A submission the store sheds is kept
// for look-up as the sink does, in its cost. Results: bench/results/<date>-ingest-cost.json.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { distinctBodies, realisticBodies } from '../lib/bodies.ts';
import { cpuMicros } from '../lib/cpu.ts';
import { startRedisServer } from '../lib/processes.ts';
import { median } from '../lib/stats.ts';
import type { ReviewJob } from '../../service/review/intake/job-schema.ts';
import type { ReviewStore } from '../../service/review/store/review-store.ts';
import { ENV_DEFAULTS } from '../../service/config/env.ts';
import { loadClassifier } from '../../core/classifier/load.ts';
import type { FormFields } from '../../core/features/form-fields.ts';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};
const baseRev = opt('--base');
const rounds = Number(opt('--rounds') ?? 6);
const perRound = Number(opt('--jobs') ?? 4000);
const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const BATCH = 32;

/** --unique: each submission's words shuffled (a text of its own, no template shared), so each flagged one leads a group. */
const unique = argv.includes('--unique');
let seed = 1;
const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
function shuffled(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v !== 'string' || v.length < 40) out[k] = v;
    else {
      const words = v.split(' ');
      for (let i = words.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [words[i], words[j]] = [words[j] as string, words[i] as string];
      }
      out[k] = words.join(' ');
    }
  }
  return out;
}

const classifier = argv.includes('--model') ? await loadClassifier({ modelsDir: path.join(repoRoot, 'models') }) : undefined;

/** With --model: the next n submissions the model's verdict flags (or, `flagged` false, does not), verdicts as served. */
function modelJobsOf(n: number, next: () => string, flagged: boolean): ReviewJob[] {
  const out: ReviewJob[] = [];
  while (out.length < n) {
    const body = JSON.parse(next()) as { formId: string; payload?: Record<string, unknown>; fieldData?: Record<string, unknown> };
    const fields = body.payload ?? body.fieldData ?? {};
    const v = (classifier as NonNullable<typeof classifier>).classify(fields as FormFields, 'bench');
    const reason = v.status === 'spam' ? 'spam' : v.confidence < ENV_DEFAULTS.REVIEW_BAND ? 'low-confidence' : undefined;
    if ((reason !== undefined) !== flagged) continue;
    out.push({
      submissionId: randomUUID(),
      accountId: 'bench',
      formId: body.formId,
      receivedAt: new Date().toISOString(),
      origin: 'https://bench.example.com',
      fields,
      truncated: false,
      verdict: { status: v.status, confidence: v.confidence, reasoning: v.reasoning, modelVersion: v.modelVersion },
      ...(reason === undefined ? {} : { queued: { reason, probability: 1 } }),
    });
  }
  return out;
}

function jobsOf(n: number, next: () => string, spam: boolean): ReviewJob[] {
  if (classifier !== undefined) return modelJobsOf(n, next, spam);
  return Array.from({ length: n }, () => {
    const body = JSON.parse(next()) as { formId: string; payload?: Record<string, unknown>; fieldData?: Record<string, unknown> };
    const fields = body.payload ?? body.fieldData ?? {};
    return {
      submissionId: randomUUID(),
      accountId: 'bench',
      formId: body.formId,
      receivedAt: new Date().toISOString(),
      origin: 'https://bench.example.com',
      fields: unique ? shuffled(fields) : fields,
      truncated: false,
      verdict: {
        status: spam ? 'spam' : 'legitimate',
        confidence: spam ? 0.97 : 0.91,
        reasoning: 'A link to a shortener, a list of SEO keywords and an offer of backlinks: typical of spam sent to contact forms.',
        modelVersion: '20261128-135406',
      },
      ...(spam ? { queued: { reason: 'spam' as const, probability: 1 } } : {}),
    };
  });
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'fg-ingest-cost-'));
  const server = await startRedisServer(tmp);
  const redis = new Redis(server.url, { lazyConnect: true });
  const baseDir = path.join(tmp, 'base');
  try {
    await redis.connect();
    const trees: Array<{ name: string; dir: string }> = [{ name: 'this', dir: repoRoot }];
    if (baseRev !== undefined) {
      execFileSync('git', ['worktree', 'add', '--detach', baseDir, baseRev], { cwd: repoRoot, stdio: 'ignore' });
      symlinkSync(path.join(repoRoot, 'node_modules'), path.join(baseDir, 'node_modules'));
      trees.unshift({ name: 'base', dir: baseDir });
    }
    const stores = new Map<string, ReviewStore>();
    for (const t of trees) {
      const mod = (await import(path.join(t.dir, 'service/review/store/review-store.ts'))) as { ReviewStore: typeof ReviewStore };
      stores.set(
        t.name,
        new mod.ReviewStore(redis, {
          prefix: `ic-${t.name}`,
          retentionDays: ENV_DEFAULTS.REVIEW_RETENTION_DAYS,
          keepFieldsDays: ENV_DEFAULTS.REVIEW_KEEP_FIELDS_DAYS,
          campaignWindowMs: ENV_DEFAULTS.REVIEW_CAMPAIGN_WINDOW_SECONDS * 1000,
          maxPending: Number(opt('--max-pending') ?? ENV_DEFAULTS.REVIEW_MAX_PENDING),
          nearGroupsMax: ENV_DEFAULTS.REVIEW_NEAR_GROUPS_MAX,
          nearMembersMax: Number(opt('--near-members') ?? ENV_DEFAULTS.REVIEW_NEAR_MEMBERS_MAX),
          keepFieldsMax: ENV_DEFAULTS.REVIEW_KEEP_FIELDS_MAX,
          lookupMax: ENV_DEFAULTS.REVIEW_LOOKUP_MAX,
        }),
      );
    }
    const next = distinctBodies(realisticBodies(repoRoot));
    const redisPid = server.pid;
    // Redis's own time in the scripts (commandstats' EVALSHA usec: µs resolution, no network handling) beside its CPU time.
    const scriptUs = async () => Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? NaN);
    const measure = async (work: () => Promise<void>) => {
      const [n0, r0, s0] = [process.cpuUsage(), cpuMicros(redisPid), await scriptUs()];
      await work();
      const n1 = process.cpuUsage(n0);
      return { nodeUs: n1.user + n1.system, redisUs: cpuMicros(redisPid) - r0, scriptUs: (await scriptUs()) - s0 };
    };
    const outcomes = new Map<string, Record<string, number>>();
    const ingest = async (store: ReviewStore, jobs: readonly ReviewJob[], tally?: Record<string, number>) => {
      for (let i = 0; i < jobs.length; i += BATCH) {
        const batch = jobs.slice(i, i + BATCH);
        const results: string[] = await store.items.ingestMany(batch);
        results.forEach((r) => tally !== undefined && (tally[r] = (tally[r] ?? 0) + 1));
        // As the sink does: a submission shed at the full queue is kept for look-up instead.
        const shed = batch.filter((_, j) => results[j] === 'shed');
        if (shed.length > 0) await Promise.all(shed.map((j) => store.items.remember(j)));
      }
    };
    const remember = async (store: ReviewStore, jobs: readonly ReviewJob[]) => {
      // As the sink sends them: a turn's worth at a time, one remember call per batch.
      for (let i = 0; i < jobs.length; i += 128) await Promise.all(jobs.slice(i, i + 128).map((j) => store.items.remember(j)));
    };
    // Warm-up: every store filled past its caps (pending 10,000, near members 5,000, look-ups 5,000).
    for (const [name, store] of stores) {
      await ingest(store, jobsOf(16_000, next, true));
      await remember(store, jobsOf(6_000, next, false));
      process.stdout.write(`${name}: warmed up\n`);
    }
    const samples: Array<{ round: number; tree: string; kind: string; nodeUs: number; redisUs: number; scriptUs: number }> = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [...stores] : [...stores].reverse();
      for (const [tree, store] of order) {
        const flagged = jobsOf(perRound, next, true);
        const unqueued = jobsOf(perRound, next, false);
        const tally: Record<string, number> = {};
        outcomes.set(`${r + 1} ${tree}`, tally);
        const a = await measure(() => ingest(store, flagged, tally));
        const b = await measure(() => remember(store, unqueued));
        for (const [kind, m] of [
          ['ingest', a],
          ['remember', b],
        ] as const) {
          samples.push({
            round: r + 1,
            tree,
            kind,
            nodeUs: m.nodeUs / perRound,
            redisUs: m.redisUs / perRound,
            scriptUs: m.scriptUs / perRound,
          });
        }
        process.stdout.write(
          `round ${r + 1} ${tree.padEnd(4)} per flagged submission: node ${(a.nodeUs / perRound).toFixed(1)} µs, redis ${(a.redisUs / perRound).toFixed(1)} µs (scripts ${(a.scriptUs / perRound).toFixed(1)}); per look-up write: node ${(b.nodeUs / perRound).toFixed(1)} µs, redis ${(b.redisUs / perRound).toFixed(1)} µs (scripts ${(b.scriptUs / perRound).toFixed(1)}); load ${os.loadavg()[0]?.toFixed(1)}; flagged ones ${JSON.stringify(tally)}\n`,
        );
      }
    }
    const summary = [...stores.keys()].flatMap((tree) =>
      ['ingest', 'remember'].map((kind) => {
        const mine = samples.filter((x) => x.tree === tree && x.kind === kind);
        return {
          tree,
          kind,
          nodeUs: median(mine.map((x) => x.nodeUs)),
          redisUs: median(mine.map((x) => x.redisUs)),
          scriptUs: median(mine.map((x) => x.scriptUs)),
        };
      }),
    );
    process.stdout.write(`\n| tree | per | node µs | redis µs | redis scripts µs |\n|---|---|---:|---:|---:|\n`);
    for (const s of summary)
      process.stdout.write(`| ${s.tree} | ${s.kind} | ${s.nodeUs.toFixed(1)} | ${s.redisUs.toFixed(1)} | ${s.scriptUs.toFixed(1)} |\n`);
    const dir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:]/g, '-').replace(/\..*$/, '')}-ingest-cost.json`);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    writeFileSync(
      file,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          commit,
          base: baseRev,
          args: argv,
          rounds,
          perRound,
          summary,
          samples,
          outcomes: Object.fromEntries(outcomes),
        },
        null,
        2,
      ) + '\n',
    );
    process.stdout.write(`wrote ${path.relative(repoRoot, file)}\n`);
  } finally {
    redis.disconnect();
    await server.stop();
    if (existsSync(baseDir)) execFileSync('git', ['worktree', 'remove', '--force', baseDir], { cwd: repoRoot, stdio: 'ignore' });
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
