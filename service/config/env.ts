import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { DEFAULT_SHADOW_PREFIX } from '../../core/classifier/shadow-store.ts';
import { DEFAULT_ACCEPT_FIRST_MS, DEFAULT_TURN_BUDGET_MS } from '../verify/admission.ts';
import { DEFAULT_KEEP_FIELDS_MAX, DEFAULT_LOOKUP_MAX, DEFAULT_NEAR_GROUPS_MAX, DEFAULT_NEAR_MEMBERS_MAX } from '../review/store/context.ts';

// Empty strings from shells and .env files mean "unset", not "invalid".
const unsetIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);
const optionalString = unsetIfEmpty(z.string().optional());
// Decimal only, surrounding spaces ignored: Number() reads " " as 0 (PORT " " listened on a random port, a timeout
// of " " turned the limit off) and "0x10" as 16.
const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
const number = (def: number) =>
  z.preprocess(
    (v) => {
      const t = typeof v === 'string' ? v.trim() : v;
      if (t === '' || t === undefined) return def;
      return typeof t === 'string' && DECIMAL.test(t) ? Number(t) : t;
    },
    z.number({ error: 'must be a decimal number' }).finite(),
  );

// ioredis understands redis:// and rediss:// only (http://host is read as a Unix socket path), and turns a path
// that is not a database number into SELECT NaN, which threw out of the process as an uncaught Redis error.
const redisUrl = z
  .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' })
  .refine((u) => !URL.canParse(u) || /^\/?\d*$/.test(new URL(u).pathname), {
    error: 'the path, if any, must be a database number (redis://host:6379/0)',
  });

/** A seed node of a Redis Cluster, as REDIS_CLUSTER_NODES lists them. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

// host:port[,host:port...]; an IPv6 address in brackets ([::1]:7000). A URL is refused: its scheme and credentials
// would be silently dropped, so the operator is told rather than left with a cluster that refuses AUTH-less clients.
const CLUSTER_NODE = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/@[\]]+)):(\d{1,5})$/;
const redisClusterNodes = optionalString.transform((raw, ctx): readonly RedisNode[] | undefined => {
  if (raw === undefined) return undefined;
  const nodes: RedisNode[] = [];
  for (const entry of raw.split(',').map((e) => e.trim())) {
    const m = CLUSTER_NODE.exec(entry);
    const port = Number(m?.[3]);
    if (m !== null && port >= 1 && port <= 65535) {
      nodes.push({ host: m[1] ?? m[2] ?? '', port });
      continue;
    }
    const why =
      entry === ''
        ? 'an empty entry (a stray comma?)'
        : /^[a-z]+:\/\//i.test(entry)
          ? `"${entry.replace(/\/\/[^@/]*@/, '//…@')}" is a URL`
          : `"${entry}" is not host:port`;
    ctx.addIssue({
      code: 'custom',
      message: `${why}: list the cluster's seed nodes as host:port, separated by commas (e.g. 10.0.0.5:7000,10.0.0.6:7000)`,
    });
    return z.NEVER;
  }
  return nodes;
});

// A whole number of service processes, or auto: one per core this process may use.
const workers = unsetIfEmpty(z.string().default('1')).transform((raw, ctx): number => {
  const v = raw.trim();
  if (v === 'auto') return availableParallelism();
  if (/^\d{1,4}$/.test(v) && Number(v) >= 1) return Number(v);
  ctx.addIssue({
    code: 'custom',
    message: `"${raw}": a whole number of service processes (1 or more), or auto for one per available core (${availableParallelism()} here)`,
  });
  return z.NEVER;
});

// true or false only: an unrecognised value must not quietly mean either.
const flag = unsetIfEmpty(z.enum(['true', 'false'], { error: 'must be true or false' }).default('false')).transform((v) => v === 'true');

const tcpPort = (def: number) => number(def).pipe(z.number().int().min(0).max(65535));

// The admin server (/metrics, /docs): a port, read as PORT is, or off. Not the public port: that is the point of it.
// One message for every bad value, since "Too big" alone would not say that off is the other choice.
const adminPortNumber = tcpPort(9464);
const adminPort = z
  .string()
  .optional()
  .transform((raw, ctx): number | 'off' => {
    if (raw?.trim() === 'off') return 'off';
    const port = adminPortNumber.safeParse(raw);
    if (port.success) return port.data;
    ctx.addIssue({ code: 'custom', message: `"${raw}": a port number (0 to 65535), or off to serve /metrics and /docs nowhere` });
    return z.NEVER;
  });

/** Which X-Forwarded-For hops are believed: none, all, the last `hops` (appended by your proxies), or those added by these proxies. */
export type TrustProxy = boolean | { readonly hops: number } | { readonly proxies: readonly string[] };

// proxy-addr's names for the private ranges; anything else must be an IP or IP/prefix (what proxy-addr compiles).
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [ip = '', prefix, ...rest] = entry.split('/');
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

// Strict: "yes" must not quietly mean false behind a proxy, and "2" is not a guess between true and two hops.
const trustProxy = unsetIfEmpty(z.string().default('false')).transform((raw, ctx): TrustProxy => {
  const v = raw.trim();
  if (v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  const hops = /^hops:(\d+)$/.exec(v);
  if (hops !== null && Number(hops[1]) >= 1) return { hops: Number(hops[1]) };
  const proxies = v.split(',').map((e) => e.trim());
  const bad = proxies.find((e) => !isProxyAddress(e));
  if (hops === null && !/^\d+$/.test(v) && bad === undefined) return { proxies };
  const why = /^\d+$/.test(v)
    ? `a hop count is written hops:${v} (a bare 1 means true)`
    : hops !== null
      ? 'hops:<n> needs n ≥ 1'
      : bad === v
        ? 'not a recognised value'
        : `"${bad}" is not an IP address or CIDR`;
  ctx.addIssue({
    code: 'custom',
    message: `"${raw}": ${why}. Use false/0, true/1, hops:<n> (e.g. hops:1), or a comma-separated list of proxy IPs/CIDRs (e.g. 10.0.0.0/8,192.0.2.7)`,
  });
  return z.NEVER;
});

/**
 * SHADOW_SAMPLE_RATE's default. A shadow costs about this share of a model's scoring per verified request, after the
 * answer; `npm run bench` measures it against verify throughput without a shadow (see docs/models.md).
 */
export const DEFAULT_SHADOW_SAMPLE_RATE = 0.1;

export const envSchema = z.object({
  NODE_ENV: unsetIfEmpty(z.enum(['development', 'production', 'test']).default('development')),
  PORT: tcpPort(3000),
  HOST: unsetIfEmpty(z.string().min(1).default('127.0.0.1')),
  ADMIN_PORT: adminPort,
  ADMIN_HOST: unsetIfEmpty(z.string().min(1).default('127.0.0.1')),
  TENANTS_FILE: optionalString,
  REDIS_URL: optionalString.pipe(redisUrl.optional()),
  REDIS_CLUSTER_NODES: redisClusterNodes,
  // Service processes on one port (node:cluster); more than one needs Redis, or the operator's consent to per-worker limits.
  WORKERS: workers,
  ALLOW_PER_WORKER_LIMITS: flag,
  MODELS_DIR: unsetIfEmpty(z.string().min(1).default('models')),
  MODEL_VERSION: optionalString,
  // The share of verified submissions a shadow model (npm run models -- shadow) also scores, after the answer.
  SHADOW_SAMPLE_RATE: number(DEFAULT_SHADOW_SAMPLE_RATE).pipe(z.number().min(0).max(1)),
  SHADOW_PREFIX: unsetIfEmpty(z.string().min(1).default(DEFAULT_SHADOW_PREFIX)),
  LOG_LEVEL: unsetIfEmpty(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  BODY_LIMIT: number(64 * 1024).pipe(
    z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024),
  ),
  TRUST_PROXY: trustProxy,
  // Node's default (0) lets a client that stops sending mid-request hold its connection forever.
  REQUEST_TIMEOUT_MS: number(30_000).pipe(z.number().int().min(0)),
  // Verify service: rate limits, key guessing, overload.
  RATE_LIMIT_PREFIX: unsetIfEmpty(z.string().min(1).default('formguard:rl')),
  KEY_FAILURE_MAX: number(20).pipe(z.number().int().min(1)),
  KEY_FAILURE_WINDOW_SECONDS: number(60).pipe(z.number().int().min(1)),
  MAX_EVENT_LOOP_DELAY_MS: number(1000).pipe(z.number().int().min(0)),
  MAX_EVENT_LOOP_UTILIZATION: number(0).pipe(z.number().min(0).max(1)),
  MAX_VERIFY_IN_FLIGHT: number(16).pipe(z.number().int().min(0)),
  MAX_VERIFY_WAIT_MS: number(1000).pipe(z.number().int().min(1)),
  VERIFY_TURN_BUDGET_MS: number(DEFAULT_TURN_BUDGET_MS).pipe(z.number().min(0.1)),
  VERIFY_ACCEPT_FIRST_MS: number(DEFAULT_ACCEPT_FIRST_MS).pipe(z.number().min(0)),
  // Redis circuit breaker (rate limit, failed-key guard, review queue add).
  REDIS_BREAKER_FAILURES: number(3).pipe(z.number().int().min(1)),
  REDIS_BREAKER_TIMEOUT_MS: number(50).pipe(z.number().int().min(1)),
  REDIS_BREAKER_OPEN_MS: number(1000).pipe(z.number().int().min(1)),
  SHUTDOWN_GRACE_MS: number(10_000).pipe(z.number().int().min(0)),
  // Review queue (only with REDIS_URL or REDIS_CLUSTER_NODES).
  REVIEW_BAND: number(0.75).pipe(z.number().min(0).max(1)),
  REVIEW_SAMPLE_RATE: number(0.01).pipe(z.number().min(0).max(1)),
  REVIEW_RETENTION_DAYS: number(30).pipe(z.number().positive()),
  // Fields of verified submissions that were not queued, kept so a moderator can label a miss; 0 keeps none.
  REVIEW_KEEP_FIELDS_DAYS: number(3).pipe(z.number().min(0)),
  REVIEW_SPOOL_DIR: unsetIfEmpty(z.string().min(1).default('.spool')),
  REVIEW_SPOOL_MAX_BYTES: number(64 * 1024 * 1024).pipe(z.number().int().positive()),
  REVIEW_MAX_FIELD_BYTES: number(16 * 1024).pipe(z.number().int().positive()),
  REVIEW_CAMPAIGN_WINDOW_SECONDS: number(600).pipe(z.number().int().min(0)),
  REVIEW_MAX_PENDING: number(10_000).pipe(z.number().int().min(0)),
  // Similar submissions grouped per account (docs/operations.md, "Review floods"): leaders in the band index, members kept.
  REVIEW_NEAR_GROUPS_MAX: number(DEFAULT_NEAR_GROUPS_MAX).pipe(z.number().int().min(0)),
  REVIEW_NEAR_MEMBERS_MAX: number(DEFAULT_NEAR_MEMBERS_MAX).pipe(z.number().int().min(0)),
  // Per-account caps on what the review store keeps per submission (besides its age): docs/operations.md sizes them.
  REVIEW_KEEP_FIELDS_MAX: number(DEFAULT_KEEP_FIELDS_MAX).pipe(z.number().int().min(0)),
  REVIEW_LOOKUP_MAX: number(DEFAULT_LOOKUP_MAX).pipe(z.number().int().min(0)),
  REVIEW_MAX_LABELLED: number(10_000).pipe(z.number().int().min(0)),
  // Allow and block lists per account (review mode): entries per account, and how often each instance compares versions.
  LISTS_MAX_ENTRIES: number(10_000).pipe(z.number().int().min(1).max(1_000_000)),
  LISTS_CHECK_MS: number(2000).pipe(z.number().int().min(100).max(60_000)),
  BULLMQ_PREFIX: unsetIfEmpty(z.string().min(1).default('formguard')),
});

// Rules across variables; envSchema stays a plain object so its shape lists every variable.
const checkedEnvSchema = envSchema.superRefine((env, ctx) => {
  if (env.ADMIN_PORT !== 'off' && env.ADMIN_PORT !== 0 && env.ADMIN_PORT === env.PORT) {
    ctx.addIssue({
      code: 'custom',
      path: ['ADMIN_PORT'],
      message: `must differ from PORT (${env.PORT}): /metrics and /docs are kept off the public port`,
    });
  }
  if (env.REDIS_URL !== undefined && env.REDIS_CLUSTER_NODES !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_CLUSTER_NODES'],
      message: 'set REDIS_URL (one Redis server) or REDIS_CLUSTER_NODES (a Redis Cluster), not both',
    });
  }
  const redis = env.REDIS_URL !== undefined || env.REDIS_CLUSTER_NODES !== undefined;
  if (env.WORKERS > 1 && !redis && !env.ALLOW_PER_WORKER_LIMITS) {
    ctx.addIssue({
      code: 'custom',
      path: ['WORKERS'],
      message:
        `${env.WORKERS} workers without Redis would each count rate limits on their own, so an account could send up to ${env.WORKERS} times its limit ` +
        '(and an IP try as many more API keys): set REDIS_URL or REDIS_CLUSTER_NODES to share the limits, or ALLOW_PER_WORKER_LIMITS=true to accept per-worker limits',
    });
  }
});

export type Env = z.infer<typeof envSchema>;

/**
 * Every variable's default, parsed from the schema itself: what buildApp and startReview fall back to for an option
 * left out, so tests run with the limits production runs with.
 */
export const ENV_DEFAULTS: Readonly<Env> = Object.freeze(envSchema.parse({}));

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value names the variable. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = checkedEnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
