import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AB_KINDS, AbProcess, type AbCost, type AbKind, type AbRound } from './ab-process.ts';
import { median, percentile } from './stats.ts';

/** What `npm run bench -- --ab <rev>` measured: the revision's core/ (A) against the working tree's (B). */
export interface AbReport {
  readonly date: string;
  readonly quick: boolean;
  readonly a: { readonly rev: string; readonly commit: string };
  readonly b: { readonly commit: string; readonly dirty: boolean };
  /** The host: a busy one widens the spread, which the control run (`--ab HEAD`, same code both sides) shows. */
  readonly machine: { readonly nproc: number; readonly node: string; readonly loadAvgStart: number; readonly loadAvgEnd: number };
  readonly modelVersion: string;
  readonly bodies: number;
  /** Whether both sides gave byte-identical feature vectors and verdicts on every body. */
  readonly sameOutput: boolean;
  /** Process pairs started one after another, and rounds over all of them. */
  readonly pairs: number;
  readonly rounds: number;
  readonly perKind: Record<AbKind, AbKindFigures>;
}

export interface AbKindFigures {
  /** Each round's median per call (µs), A and B. */
  readonly roundsA: number[];
  readonly roundsB: number[];
  /** Each round's fastest call (µs): on a busy host the least disturbed reading of the code's own cost. */
  readonly minsA: number[];
  readonly minsB: number[];
  /** B / A of the round medians, then its median and range: below 1 means B is faster. */
  readonly ratios: number[];
  readonly ratioMedian: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
  /** The median ratio within each process pair: how much one pair of processes differs from the next. */
  readonly pairRatioMedians: number[];
  /** Rounds in which B's median was the lower. */
  readonly bFaster: number;
  /** B / A of the round minima, its median. */
  readonly minRatioMedian: number;
  readonly pooledA: AbCost;
  readonly pooledB: AbCost;
}

const git = (repoRoot: string, args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/**
 * core/ as it was at `rev`, extracted under the repository's .tmp/ (so its imports find node_modules): the
 * feature extractor and the classifier of that revision, runnable side by side with the working tree's.
 */
export function materializeCore(
  repoRoot: string,
  rev: string,
  withModels = false,
): { commit: string; coreDir: string; modelsDir: string; cleanup: () => void } {
  const commit = git(repoRoot, ['rev-parse', '--verify', '--short', `${rev}^{commit}`]);
  for (const file of ['core/classifier/load.ts', 'core/features/index.ts']) {
    try {
      git(repoRoot, ['cat-file', '-e', `${commit}:${file}`]);
    } catch {
      throw new Error(`revision ${rev} (${commit}) has no ${file}: the A/B compares revisions that have the shared core/ folder`);
    }
  }
  mkdirSync(path.join(repoRoot, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(repoRoot, '.tmp', `bench-ab-${commit}-`));
  const paths = withModels ? ['core', 'models'] : ['core'];
  const tar = execFileSync('git', ['archive', '--format=tar', commit, ...paths], { cwd: repoRoot, maxBuffer: 256 * 2 ** 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return {
    commit,
    coreDir: path.join(dir, 'core'),
    modelsDir: withModels ? path.join(dir, 'models') : path.join(repoRoot, 'models'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Times the feature extractor and the whole classify call of `rev` (A) and of the working tree (B), each in a
 * warm child process of its own, in alternating rounds (A B, B A, A B, …): the machine is 2 shared cores whose
 * speed moves over minutes, and rounds a second apart see the same machine. The figure is the per-round ratio.
 * Both processes are replaced every few rounds: a process's JIT decisions (made on a background thread, at
 * whatever moment the busy host lets them finish) can leave it a few percent faster or slower for its whole life.
 */
export async function runAb(opts: {
  repoRoot: string;
  rev: string;
  quick: boolean;
  /** Each side loads the newest model of its own tree (the revision's models/ for A): a model change's cost. */
  ownModels?: boolean;
  log: (msg: string) => void;
}): Promise<AbReport> {
  const { repoRoot, rev, quick, log } = opts;
  const pairs = quick ? 1 : 4;
  const roundsPerPair = quick ? 4 : 12;
  const loadAvgStart = os.loadavg()[0] as number;
  const old = materializeCore(repoRoot, rev, opts.ownModels === true);
  const got: Record<'a' | 'b', AbRound[]> = { a: [], b: [] };
  const samples: Record<'a' | 'b', Record<AbKind, number[]>> = {
    a: { extract: [], classify: [], extract64k: [] },
    b: { extract: [], classify: [], extract64k: [] },
  };
  let sameOutput = true;
  let modelVersion = '';
  let bodies = 0;
  try {
    for (let pair = 0; pair < pairs; pair++) {
      const sides: AbProcess[] = [];
      try {
        const a = await AbProcess.start(`A (${old.commit})`, repoRoot, old.coreDir, old.modelsDir, quick);
        sides.push(a);
        const b = await AbProcess.start('B (working tree)', repoRoot, path.join(repoRoot, 'core'), path.join(repoRoot, 'models'), quick);
        sides.push(b);
        if (pair === 0) {
          if (a.info.featureVersion !== b.info.featureVersion)
            log(`note: feature versions differ (A ${a.info.featureVersion}, B ${b.info.featureVersion})`);
          // Each side's loadClassifier picks the model as its revision did: they may pick different folders.
          if (a.info.modelVersion !== b.info.modelVersion)
            log(`note: the sides loaded different models (A ${a.info.modelVersion}, B ${b.info.modelVersion})`);
          sameOutput = (await a.digest()) === (await b.digest());
          ({ bodies } = b.info);
          modelVersion =
            a.info.modelVersion === b.info.modelVersion ? b.info.modelVersion : `A ${a.info.modelVersion}, B ${b.info.modelVersion}`;
          log(
            `model ${modelVersion}, ${bodies} realistic bodies; A and B give ${sameOutput ? 'identical' : 'DIFFERENT'} features and verdicts`,
          );
        }
        await a.warm();
        await b.warm();
        for (let r = 0; r < roundsPerPair; r++) {
          const round: Partial<Record<'a' | 'b', AbRound>> = {};
          for (const side of r % 2 === 0 ? [a, b] : [b, a]) round[side === a ? 'a' : 'b'] = await side.chunk();
          const [ma, mb] = [round.a as AbRound, round.b as AbRound];
          got.a.push(ma);
          got.b.push(mb);
          log(
            `pair ${pair + 1}/${pairs} round ${String(r + 1).padStart(2)}/${roundsPerPair}  ${AB_KINDS.map((k) => `${k} A ${ma[k].medianUs.toFixed(2)} B ${mb[k].medianUs.toFixed(2)} µs`).join('  ')}`,
          );
        }
        const [sa, sb] = [await a.result(), await b.result()];
        for (const k of AB_KINDS) {
          for (const x of sa[k]) samples.a[k].push(x);
          for (const x of sb[k]) samples.b[k].push(x);
        }
      } finally {
        for (const s of sides) s.stop();
      }
    }
  } finally {
    old.cleanup();
  }
  const figures = (k: AbKind): AbKindFigures => {
    const roundsA = got.a.map((m) => m[k].medianUs);
    const roundsB = got.b.map((m) => m[k].medianUs);
    const minsA = got.a.map((m) => m[k].minUs);
    const minsB = got.b.map((m) => m[k].minUs);
    const ratios = roundsB.map((x, i) => x / (roundsA[i] as number));
    return {
      roundsA,
      roundsB,
      minsA,
      minsB,
      ratios,
      ratioMedian: median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
      pairRatioMedians: Array.from({ length: pairs }, (_, p) => median(ratios.slice(p * roundsPerPair, (p + 1) * roundsPerPair))),
      bFaster: ratios.filter((x) => x < 1).length,
      minRatioMedian: median(minsB.map((x, i) => x / (minsA[i] as number))),
      pooledA: cost(samples.a[k]),
      pooledB: cost(samples.b[k]),
    };
  };
  return {
    date: new Date().toISOString(),
    quick,
    a: { rev, commit: old.commit },
    b: {
      commit: git(repoRoot, ['rev-parse', '--short', 'HEAD']),
      dirty: git(repoRoot, ['status', '--porcelain', '--untracked-files=no', '--', 'core']) !== '',
    },
    machine: { nproc: os.availableParallelism(), node: process.version, loadAvgStart, loadAvgEnd: os.loadavg()[0] as number },
    modelVersion,
    bodies,
    sameOutput,
    pairs,
    rounds: pairs * roundsPerPair,
    perKind: { extract: figures('extract'), classify: figures('classify'), extract64k: figures('extract64k') },
  };
}

function cost(us: number[]): AbCost {
  const s = [...us].sort((a, b) => a - b);
  return { calls: s.length, medianUs: percentile(s, 50), p90Us: percentile(s, 90), p99Us: percentile(s, 99) };
}

export function renderAb(r: AbReport): string {
  const f2 = (x: number) => x.toFixed(2);
  const row = (k: AbKind) => {
    const x = r.perKind[k];
    return `| ${k} | ${f2(median(x.roundsA))} (${f2(Math.min(...x.roundsA))}-${f2(Math.max(...x.roundsA))}) | ${f2(median(x.roundsB))} (${f2(Math.min(...x.roundsB))}-${f2(Math.max(...x.roundsB))}) | ${x.ratioMedian.toFixed(3)} (${x.ratioMin.toFixed(3)}-${x.ratioMax.toFixed(3)}) | ${x.pairRatioMedians.map((v) => v.toFixed(3)).join(' ')} | ${x.bFaster}/${r.rounds} | ${x.minRatioMedian.toFixed(3)} | ${f2(x.pooledA.p90Us)} / ${f2(x.pooledB.p90Us)} |`;
  };
  return [
    `## A/B: ${r.a.rev} (${r.a.commit}) = A, working tree at ${r.b.commit}${r.b.dirty ? ' (+uncommitted core/ changes)' : ''} = B${r.quick ? ' (QUICK)' : ''}`,
    '',
    `${r.rounds} alternating rounds in ${r.pairs} pair(s) of warm processes, one per side; ${r.machine.nproc} cores, ` +
      `load average ${r.machine.loadAvgStart.toFixed(1)} → ${r.machine.loadAvgEnd.toFixed(1)}; model ${r.modelVersion}; ${r.bodies} realistic bodies per pass ` +
      `(extract64k: the 64 KiB worst-case body); ` +
      `output ${r.sameOutput ? 'identical on every body' : 'DIFFERS between A and B'}.`,
    '',
    '| call | A median µs (round range) | B median µs (round range) | B / A per round: median (range) | B / A by process pair | rounds B faster | B / A of round minima | p90 µs A / B |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...AB_KINDS.map(row),
  ].join('\n');
}
