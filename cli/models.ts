import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { ModelLoadError } from '../core/classifier/errors.ts';
import type { LinearClassifier } from '../core/classifier/linear-classifier.ts';
import type { Manifest } from '../core/classifier/manifest.ts';
import { listModelVersions, loadModelFolder, loadServable, readManifest } from '../core/classifier/load.ts';
import {
  chooseServing,
  readServingRecord,
  MAX_SERVING_HISTORY,
  ServingRecordError,
  servingFile,
  servingHistory,
  writeServingRecord,
  type ServingRecord,
} from '../core/classifier/serving-record.ts';
import { runCommand } from '../core/cli/run.ts';
import { CommandError, parseFlags, UsageError } from '../core/cli/usage.ts';
import { DataError, latestLabels, readLabelledFile } from '../training/data/loaders.ts';
import type { LabelledRecord } from '../training/data/record.ts';
import { DEFAULT_HOLDOUT_DIR } from '../training/data/holdout.ts';
import { testSplitOf } from '../training/data/test-split.ts';
import { fairComparison } from '../training/lifecycle/fair-comparison.ts';
import { shadowReport } from '../training/lifecycle/shadow-report.ts';

const HELP = `npm run models -- <command>
  list                              every version: created, feature version, test F1 / FPR and the test set
                                    they were measured on (only rows with the same one compare); which is
                                    active, previous and shadow
  compare <a> <b> [--data <file>...] [--data-dir data] [--seed n] [--holdout training/holdout]
                                    both on the same labelled records that neither trained on (default: the
                                    test split of --data-dir, drawn with <b>'s seed, less every record either
                                    model trained on; refused when that cannot be known), side by side, with
                                    how many records that left, the paired counts and McNemar's test; then each
                                    held-out file of --holdout the same way
  promote <version>                 makes it active (the active one becomes previous); refused if it cannot serve;
                                    says what it did to the shadow
  rollback                          the version the last promotion replaced becomes active again; each rollback
                                    walks one promotion further back (models/serving.json keeps the history),
                                    never forward, and is refused when none is left
  shadow <version> | shadow --off   sets or clears the shadow, scored beside the active model on live traffic
  shadow-report [--account <id>] [--labels data/labels]
                                    what the shadow did on all scored traffic (needs REDIS_URL); both models'
                                    precision, recall and FPR estimated over that traffic from the moderators'
                                    exported labels, each weighted by 1 / its chance of being queued, with 95%
                                    intervals; items queued as spam, uncertain or disputed counted apart
Reads MODELS_DIR (default models) as the service does; running services follow a change within seconds.
Exit status: 0 done, 1 refused or failed (the reason is printed), 2 malformed command line.`;

/** A change the command refuses (exit 1): the reason is printed and nothing is written. */
class RefusedError extends CommandError {
  override name = 'RefusedError';
}

const modelsDir = () => path.resolve(process.env.MODELS_DIR?.trim() || 'models');

function changedBy(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid-${process.getuid?.() ?? '?'}@${hostname()}`;
  }
}

/** Leading arguments that are not flags, then the flags. */
function split(argv: string[]): { positionals: string[]; flags: string[] } {
  const positionals: string[] = [];
  let i = 0;
  while (i < argv.length && !(argv[i] as string).startsWith('-')) positionals.push(argv[i++] as string);
  return { positionals, flags: argv.slice(i) };
}

function exactly(command: string, positionals: string[], names: string[]): string[] {
  if (positionals.length !== names.length)
    throw new UsageError(`${command} takes ${names.length ? names.map((n) => `<${n}>`).join(' ') : 'no arguments'}`);
  return positionals;
}

async function readRecord(dir: string): Promise<ServingRecord | undefined> {
  try {
    return await readServingRecord(dir);
  } catch (e) {
    if (e instanceof ServingRecordError)
      throw new RefusedError(`${e.message}; fix or delete ${servingFile(dir)} first (without it the newest version serves)`);
    throw e;
  }
}

/** Refuses what the service would refuse: an unknown version, another feature version, files that do not load or score. */
async function servable(dir: string, version: string): Promise<LinearClassifier> {
  const versions = await listModelVersions(dir);
  if (!versions.includes(version)) throw new RefusedError(`no model version ${version} in ${dir} (have: ${versions.join(', ') || 'none'})`);
  try {
    return await loadServable(dir, version);
  } catch (e) {
    if (e instanceof ModelLoadError) throw new RefusedError(`${version} cannot serve: ${e.message}`);
    throw e;
  }
}

async function list(): Promise<void> {
  const dir = modelsDir();
  const versions = await listModelVersions(dir);
  if (versions.length === 0) throw new RefusedError(`no model versions in ${dir} (run \`npm run train\`)`);
  const record = await readRecord(dir);
  const serving = chooseServing(record, versions);
  console.log(
    `${dir}: ${record === undefined ? 'no serving record, the newest version serves' : `serving record changed ${record.changedAt} by ${record.changedBy}`}`,
  );
  console.log('version                created               features         test F1   test FPR   test set                          role');
  const testSets = new Set<string>();
  for (const v of [...versions].reverse()) {
    const roles = [v === serving.active ? 'active' : '', v === serving.previous ? 'previous' : '', v === serving.shadow ? 'shadow' : '']
      .filter(Boolean)
      .join(', ');
    try {
      const m = await readManifest(path.join(dir, v));
      const t = m.metrics.test.overall;
      const set = testSetOf(m);
      testSets.add(set);
      console.log(
        `${v.padEnd(22)} ${m.created.slice(0, 19).padEnd(21)} ${m.featureVersion.padEnd(16)} ${t.f1.toFixed(3).padStart(7)}   ${`${(100 * t.fpr).toFixed(2)}%`.padStart(8)}   ${set.padEnd(33)} ${roles}`,
      );
    } catch (e) {
      console.log(`${v.padEnd(22)} unreadable: ${(e as Error).message}   ${roles}`);
    }
  }
  console.log(
    testSets.size > 1
      ? `The test figures were measured on ${testSets.size} different test sets ("test set": split rule, seed, data): only rows with the same one compare; \`npm run models -- compare <a> <b>\` scores two models on records neither trained on.`
      : 'Every test figure above was measured on the same test set (same split rule, seed and data files).',
  );
}

/** Which test set a model's figures were measured on: the split rule, its seed and a digest of the data files it read. */
function testSetOf(m: Manifest): string {
  const rule = m.data.split?.rule ?? 'seeded-shuffle';
  const seed = m.data.split?.seed ?? m.parameters.seed;
  const files = [...m.data.files]
    .map((f) => `${f.path} ${f.sha256}`)
    .sort()
    .join('\n');
  return `${rule} seed ${seed} data ${createHash('sha256').update(files).digest('hex').slice(0, 8)}`;
}

/** A version in MODELS_DIR, or the path of a model folder. */
async function modelArg(dir: string, arg: string): Promise<{ model: LinearClassifier; dir: string }> {
  const folder = existsSync(path.join(dir, arg, 'manifest.json')) ? path.join(dir, arg) : path.resolve(arg);
  if (!existsSync(path.join(folder, 'manifest.json'))) {
    throw new RefusedError(
      `no model ${arg}: neither a version in ${dir} (have: ${(await listModelVersions(dir).catch(() => [])).join(', ') || 'none'}) nor a model folder`,
    );
  }
  try {
    return { model: await loadModelFolder(folder), dir: folder };
  } catch (e) {
    if (e instanceof ModelLoadError) throw new RefusedError(e.message);
    throw e;
  }
}

async function compare(argv: string[]): Promise<void> {
  const { positionals, flags } = split(argv);
  const [a, b] = exactly('compare', positionals, ['a', 'b']) as [string, string];
  const { values } = parseFlags(flags, {
    data: { type: 'string', multiple: true },
    'data-dir': { type: 'string', default: 'data' },
    seed: { type: 'string' },
    holdout: { type: 'string', default: DEFAULT_HOLDOUT_DIR },
  });
  const dir = modelsDir();
  const [current, candidate] = await Promise.all([modelArg(dir, a), modelArg(dir, b)]);
  let records: LabelledRecord[];
  let what: string;
  if (values.data?.length) {
    const files = values.data.map((f) => readLabelledFile(path.resolve(f)));
    records = latestLabels(
      files.flatMap((f) => f.records),
      files.flatMap((f) => f.withdrawals),
    );
    what = values.data.join(', ');
  } else {
    const m = candidate.model.manifest;
    const seed = values.seed === undefined ? (m.data.split?.seed ?? m.parameters.seed) : Number(values.seed);
    if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer, got ${values.seed}`);
    records = testSplitOf(values['data-dir'], seed, values.holdout);
    what = `the test split of ${values['data-dir']} (seed ${seed})`;
  }
  if (records.length === 0) throw new DataError(`no labelled records in ${what}`);
  const result = fairComparison({
    current,
    candidate,
    records,
    what,
    dataDir: path.resolve(values['data-dir']),
    givenFiles: Boolean(values.data?.length),
    holdoutDir: path.resolve(values.holdout),
  });
  for (const line of result.lines) console.log(line);
}

async function promote(argv: string[]): Promise<void> {
  const { positionals, flags } = split(argv);
  const [version] = exactly('promote', positionals, ['version']) as [string];
  parseFlags(flags, {});
  const dir = modelsDir();
  const record = await readRecord(dir);
  const serving = chooseServing(record, await listModelVersions(dir));
  if (serving.active === version && record !== undefined) throw new RefusedError(`${version} is already active`);
  await servable(dir, version);
  const replaced = serving.active === version ? null : serving.active;
  const history = [...servingHistory(record), ...(replaced === null ? [] : [replaced])].slice(-MAX_SERVING_HISTORY);
  const shadow = serving.shadow === version ? null : serving.shadow;
  await writeServingRecord(dir, {
    active: version,
    previous: history.at(-1) ?? null,
    history,
    shadow,
    changedAt: new Date().toISOString(),
    changedBy: changedBy(),
  });
  console.log(
    `promoted ${version}${replaced ? ` (previous: ${replaced}; \`npm run models -- rollback\` undoes this)` : ''}; running services switch within 5 s`,
  );
  console.log(shadowAfterPromote(serving.shadow, version));
}

/** What a promotion did to the shadow: said every time, since a shadow that stops scoring is easy to miss. */
function shadowAfterPromote(shadow: string | null, promoted: string): string {
  if (shadow === null) return 'no shadow was set';
  if (shadow === promoted)
    return `the shadow ${shadow} is now the active model, so nothing is shadowed any more (npm run models -- shadow <version> sets another)`;
  return `the shadow ${shadow} stays, now scored beside ${promoted}`;
}

async function rollback(argv: string[]): Promise<void> {
  const { positionals, flags } = split(argv);
  exactly('rollback', positionals, []);
  parseFlags(flags, {});
  const dir = modelsDir();
  const record = await readRecord(dir);
  const history = servingHistory(record);
  const back = history.at(-1);
  if (record === undefined || back === undefined)
    throw new RefusedError(
      record === undefined
        ? 'nothing to roll back to: no version was promoted over another (see `npm run models -- list`)'
        : `nothing to roll back to: ${record.active} replaced no version that is still recorded (rollback walks back through promotions, never forward; \`npm run models -- promote <version>\` serves any version)`,
    );
  await servable(dir, back);
  const rest = history.slice(0, -1);
  const shadowCleared = record.shadow === back;
  await writeServingRecord(dir, {
    active: back,
    previous: rest.at(-1) ?? null,
    history: rest,
    shadow: shadowCleared ? null : record.shadow,
    changedAt: new Date().toISOString(),
    changedBy: changedBy(),
  });
  console.log(
    `rolled back from ${record.active}: ${back} is active again; ${rest.length ? `a further rollback would bring back ${rest.at(-1)}` : 'no earlier promotion is recorded, so a further rollback is refused'}; running services switch within 5 s`,
  );
  if (shadowCleared) console.log(`the shadow ${back} is now the active model, so nothing is shadowed any more`);
}

async function shadow(argv: string[]): Promise<void> {
  const { positionals, flags } = split(argv);
  const { values } = parseFlags(flags, { off: { type: 'boolean', default: false } });
  if (values.off === (positionals.length === 1) || positionals.length > 1) throw new UsageError('shadow takes a <version>, or --off');
  const dir = modelsDir();
  const record = await readRecord(dir);
  const serving = chooseServing(record, await listModelVersions(dir));
  const base = {
    active: serving.active,
    previous: serving.previous,
    ...(record?.history === undefined ? {} : { history: record.history }),
    changedAt: new Date().toISOString(),
    changedBy: changedBy(),
  };
  if (values.off) {
    if (serving.shadow === null) {
      console.log('no shadow was set; nothing changed');
      return;
    }
    await writeServingRecord(dir, { ...base, shadow: null });
    console.log(`shadow ${serving.shadow} off`);
    return;
  }
  const version = positionals[0] as string;
  if (version === serving.active) throw new RefusedError(`${version} is the active model; a shadow is another version scored beside it`);
  if (version === serving.shadow) throw new RefusedError(`${version} is already the shadow`);
  await servable(dir, version);
  await writeServingRecord(dir, { ...base, shadow: version });
  console.log(
    `shadowing ${version} beside ${serving.active}: a sample of verified submissions (SHADOW_SAMPLE_RATE) is also scored by it, after each answer`,
  );
}

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'list':
      exactly('list', split(rest).positionals, []);
      parseFlags(split(rest).flags, {});
      return list();
    case 'compare':
      return compare(rest);
    case 'promote':
      return promote(rest);
    case 'rollback':
      return rollback(rest);
    case 'shadow':
      return shadow(rest);
    case 'shadow-report': {
      const { values } = parseFlags(rest, {
        account: { type: 'string' },
        labels: { type: 'string', default: path.join('data', 'labels') },
      });
      const redisUrl = process.env.REDIS_URL?.trim();
      if (!redisUrl)
        throw new RefusedError(
          'shadow-report reads the counts the service keeps in Redis: set REDIS_URL as the service has it (without Redis, each instance counts in /metrics)',
        );
      const report = await shadowReport({
        redisUrl,
        prefix: process.env.SHADOW_PREFIX?.trim() || undefined,
        account: values.account,
        labelsDir: path.resolve(values.labels),
      }).catch((e: unknown) => {
        // The URL is not repeated: it may carry a password.
        if (e instanceof DataError) throw e;
        throw new RefusedError(`cannot read the shadow counts from Redis (REDIS_URL): ${(e as Error).message}`);
      });
      for (const line of report) console.log(line);
      return;
    }
    case 'help':
      console.log(HELP);
      return;
    case undefined:
      throw new UsageError('a command is needed');
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

runCommand({
  name: 'models',
  usage: HELP,
  main: run,
  exitCodeOf: (e) => (e instanceof DataError || e instanceof ModelLoadError ? 1 : undefined),
});
