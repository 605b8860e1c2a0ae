/**
 * What a wide verify body costs (many small values), against a normal ~1 KB one: in process (the pre-parse scan,
 * JSON.parse, classify) and through the whole app (app.inject), with the real model and BODY_LIMIT at 16 MiB.
 * The scan is compared with the depth-only scan it replaced, interleaved in this one process.
 * Run: npx tsx bench/wide-body.ts
 */
import path from 'node:path';
import { buildApp } from '../../service/app.ts';
import { loadClassifier } from '../../core/classifier/load.ts';
import { repoRoot } from '../../core/fs/repo-root.ts';
import { exceedsJsonLimits, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../service/http/json-depth.ts';
import { sha256Hex } from '../../service/tenants/key.ts';
import { parseTenants } from '../../service/tenants/load.ts';

const KEY = 'bench-key-0123456789';
const tenants = parseTenants(
  JSON.stringify({
    accounts: [
      {
        id: 'a',
        apiKeys: [{ id: 'k', sha256: sha256Hex(KEY) }],
        rateLimit: { max: 1e9, windowSeconds: 60 },
        forms: [{ id: 'contact', allowedReferrers: ['*'] }],
      },
    ],
  }),
  'bench',
);
const LIMIT = 16 * 1024 * 1024;
const MESSAGE = 'Hello, could you send me a quote for 20 oak chairs?';

/** The depth-only scan before the count of values was added (commit 68cd5b1), for the A/B. */
function nestsDeeperThanBefore(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let at = i;
      for (;;) {
        at = text.indexOf('"', at + 1);
        if (at === -1) return false;
        let b = 0;
        while (text.charCodeAt(at - 1 - b) === 0x5c) b++;
        if (b % 2 === 0) break;
      }
      i = at;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const envelope = (payload: string) => `{"apiKey":"${KEY}","formId":"contact","payload":${payload}}`;

/** `{"f<i>":"x"}` fields, the message first, as many as fit in `bytes` (or `count` of them). */
function smallFields(bytes: number, count = Infinity): string {
  const parts = [`{"message":"${MESSAGE}"`];
  let size = envelope('').length + parts[0]!.length + 1;
  for (let i = 0; i < count - 1; i++) {
    const f = `,"f${i}":"x"`;
    if (size + f.length > bytes) break;
    parts.push(f);
    size += f.length;
  }
  return envelope(parts.join('') + '}');
}

const atBound = {
  'small fields': smallFields(LIMIT, MAX_JSON_VALUES),
  // Each field's string as long as 16 MiB allows: roleOf reads every value past the 256 kept.
  'long values, 16 MiB': (() => {
    const each = Math.floor((LIMIT - 200) / MAX_JSON_VALUES) - 12;
    const v = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(each / 27)).slice(0, each);
    return envelope(`{${Array.from({ length: MAX_JSON_VALUES }, (_, i) => `"f${i}":"${v}"`).join(',')}}`);
  })(),
  '[{name,value}] pairs': envelope(
    `{"fields":[${Array.from({ length: (MAX_JSON_VALUES - 1) / 3 }, (_, i) => `{"name":"f${i}","value":"x"}`).join(',')}]}`,
  ),
  'empty arrays': envelope(`{"a":[${Array.from({ length: MAX_JSON_VALUES - 1 }, () => '[]').join(',')}]}`),
  'nested 29 deep': envelope(
    `{${Array.from({ length: Math.floor(MAX_JSON_VALUES / 30) }, (_, i) => `"f${i}":${'['.repeat(29)}"x"${']'.repeat(29)}`).join(',')}}`,
  ),
};
for (const [name, body] of Object.entries(atBound)) {
  const v = exceedsJsonLimits(body, MAX_JSON_DEPTH, MAX_JSON_VALUES);
  if (v !== undefined || body.length > LIMIT) throw new Error(`${name}: ${v} ${body.length}`);
}

const normal = JSON.stringify({
  apiKey: KEY,
  formId: 'contact',
  payload: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+44 20 7946 0958',
    company: 'Lovelace Analytical Engines Ltd',
    subject: 'Quote for oak chairs',
    message:
      'Hello, could you send me a quote for 20 oak chairs, delivered to our office in London before the end of next month? We would also like to know whether you offer matching tables, what finishes are available, and whether a discount applies to orders of this size. A rough delivery date and the payment terms would help too. Many thanks, Ada. '.repeat(
        2,
      ),
    consent: true,
  },
});
const wide = smallFields(LIMIT);
const prose64k = (() => {
  const head = envelope('{"name":"Ada","email":"ada@example.com","message":"');
  return (
    head + 'Could you send me a quote for 20 oak chairs, delivered next month? '.repeat(1000).slice(0, 65_536 - head.length - 3) + '"}}'
  );
})();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(2)} µs`);

/** Median µs per call of each function, measured in alternating rounds. */
function ab(label: string, n: number, fns: Record<string, () => unknown>): void {
  const t: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (const fn of Object.values(fns)) for (let i = 0; i < Math.min(n, 100); i++) fn();
  for (let round = 0; round < 10; round++) {
    for (const [k, fn] of Object.entries(fns)) {
      for (let i = 0; i < n / 10; i++) {
        const t0 = process.hrtime.bigint();
        fn();
        t[k]!.push(Number(process.hrtime.bigint() - t0) / 1e3);
      }
    }
  }
  console.log(
    `${label}: ${Object.entries(t)
      .map(([k, xs]) => `${k} ${fmt(median(xs))}`)
      .join(', ')} (n=${n} each)`,
  );
}

const classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
console.log(`normal body ${normal.length} B; wide body ${wide.length} B (${(wide.match(/,/g) ?? []).length + 1} fields)`);

ab('normal, pre-parse scan', 100_000, {
  'depth only (before)': () => nestsDeeperThanBefore(normal, MAX_JSON_DEPTH),
  'depth + values (after)': () => exceedsJsonLimits(normal, MAX_JSON_DEPTH, MAX_JSON_VALUES),
});
ab('normal, JSON.parse', 20_000, { parse: () => JSON.parse(normal) });
ab('64 KiB of prose, pre-parse scan', 20_000, {
  'depth only (before)': () => nestsDeeperThanBefore(prose64k, MAX_JSON_DEPTH),
  'depth + values (after)': () => exceedsJsonLimits(prose64k, MAX_JSON_DEPTH, MAX_JSON_VALUES),
});
ab('wide 16 MiB, pre-parse scan', 10, {
  'depth only (before)': () => nestsDeeperThanBefore(wide, MAX_JSON_DEPTH),
  'depth + values (after, stops at the bound)': () => exceedsJsonLimits(wide, MAX_JSON_DEPTH, MAX_JSON_VALUES),
});
ab('wide 16 MiB, JSON.parse + classify (what the refusal now spares)', 2, {
  parse: () => JSON.parse(wide),
  classify: () => classifier.classify((JSON.parse(wide) as { payload: Record<string, unknown> }).payload),
});
for (const [name, body] of Object.entries(atBound)) {
  ab(`at the bound (${MAX_JSON_VALUES} values), ${name}, ${(body.length / 1024).toFixed(0)} KiB`, 20, {
    scan: () => exceedsJsonLimits(body, MAX_JSON_DEPTH, MAX_JSON_VALUES),
    parse: () => JSON.parse(body),
    'parse + classify': () => classifier.classify((JSON.parse(body) as { payload: Record<string, unknown> }).payload),
  });
}

const app = await buildApp({ tenants: { current: tenants }, classifier, bodyLimit: LIMIT, maxEventLoopDelayMs: 0, logger: false });
async function inject(label: string, body: string, n: number): Promise<void> {
  const t: number[] = [];
  const statuses = new Set<number>();
  for (let i = 0; i < n + Math.min(n, 100); i++) {
    const t0 = process.hrtime.bigint();
    const res = await app.inject({
      method: 'POST',
      url: '/v1/verify',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      payload: body,
    });
    if (i >= Math.min(n, 100)) t.push(Number(process.hrtime.bigint() - t0) / 1e3);
    statuses.add(res.statusCode);
  }
  console.log(`app.inject, ${label}: status ${[...statuses].join('/')}, median ${fmt(median(t))}, max ${fmt(Math.max(...t))} (n=${n})`);
}
await inject('normal', normal, 5000);
await inject('wide 16 MiB', wide, 10);
for (const [name, body] of Object.entries(atBound)) await inject(`at the bound, ${name}`, body, 20);
await app.close();
