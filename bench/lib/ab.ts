import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { AB_KINDS, AbProcess, type AbCost, type AbKind, type AbRound } from './ab-process.ts';
import { median } from './stats.ts';

/** What `npm run bench -- --ab <rev>` measured: the revision's core/ (A) against the working tree's (B). */
export interface AbReport {
  readonly date: string;
  readonly quick: boolean;
  readonly a: { readonly rev: string; readonly commit: string };
  readonly b: { readonly commit: string; readonly dirty: boolean };
  readonly modelVersion: string;
  readonly bodies: number;
  /** Whether both sides gave byte-identical feature vectors and verdicts on every body. */
  readonly sameOutput: boolean;
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
export function materializeCore(repoRoot: string, rev: string): { commit: string; coreDir: string; cleanup: () => void } {
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
  const tar = execFileSync('git', ['archive', '--format=tar', commit, 'core'], { cwd: repoRoot, maxBuffer: 256 * 2 ** 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return { commit, coreDir: path.join(dir, 'core'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Times the feature extractor and the whole classify call of `rev` (A) and of the working tree (B), each in a
 * warm child process of its own, in alternating rounds (A B, B A, A B, …): the machine is 2 shared cores whose
 * speed moves over minutes, and rounds seconds apart see the same machine. The figure is the per-round ratio.
 */
export async function runAb(opts: { repoRoot: string; rev: string; quick: boolean; log: (msg: string) => void }): Promise<AbReport> {
  const { repoRoot, rev, quick, log } = opts;
  const rounds = quick ? 4 : 40;
  const old = materializeCore(repoRoot, rev);
  const sides: AbProcess[] = [];
  try {
    const a = await AbProcess.start(`A (${old.commit})`, repoRoot, old.coreDir, quick);
    sides.push(a);
    const b = await AbProcess.start('B (working tree)', repoRoot, path.join(repoRoot, 'core'), quick);
    sides.push(b);
    if (a.info.featureVersion !== b.info.featureVersion) log(`note: feature versions differ (A ${a.info.featureVersion}, B ${b.info.featureVersion})`);
    const sameOutput = (await a.digest()) === (await b.digest());
    log(`model ${b.info.modelVersion}, ${b.info.bodies} realistic bodies; A and B give ${sameOutput ? 'identical' : 'DIFFERENT'} features and verdicts`);
    await a.warm();
    await b.warm();
    const got: Record<'a' | 'b', AbRound[]> = { a: [], b: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? [a, b] : [b, a]) got[side === a ? 'a' : 'b'].push(await side.chunk());
      const [ma, mb] = [got.a[r] as AbRound, got.b[r] as AbRound];
      log(`round ${String(r + 1).padStart(2)}/${rounds}  ${AB_KINDS.map((k) => `${k} A ${ma[k].medianUs.toFixed(2)} B ${mb[k].medianUs.toFixed(2)} µs`).join('  ')}`);
    }
    const [pa, pb] = [await a.result(), await b.result()];
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
        minRatioMedian: median(minsB.map((x, i) => x / (minsA[i] as number))),
        ratioMedian: median(ratios),
        ratioMin: Math.min(...ratios),
        ratioMax: Math.max(...ratios),
        bFaster: ratios.filter((x) => x < 1).length,
        pooledA: pa[k],
        pooledB: pb[k],
      };
    };
    return {
      date: new Date().toISOString(),
      quick,
      a: { rev, commit: old.commit },
      b: { commit: git(repoRoot, ['rev-parse', '--short', 'HEAD']), dirty: git(repoRoot, ['status', '--porcelain', '--untracked-files=no', '--', 'core']) !== '' },
      modelVersion: b.info.modelVersion,
      bodies: b.info.bodies,
      sameOutput,
      rounds,
      perKind: { extract: figures('extract'), classify: figures('classify'), extract64k: figures('extract64k') },
    };
  } finally {
    for (const s of sides) s.stop();
    old.cleanup();
  }
}

export function renderAb(r: AbReport): string {
  const f2 = (x: number) => x.toFixed(2);
  const row = (k: AbKind) => {
    const x = r.perKind[k];
    return `| ${k} | ${f2(median(x.roundsA))} (${f2(Math.min(...x.roundsA))}-${f2(Math.max(...x.roundsA))}) | ${f2(median(x.roundsB))} (${f2(Math.min(...x.roundsB))}-${f2(Math.max(...x.roundsB))}) | ${x.ratioMedian.toFixed(3)} (${x.ratioMin.toFixed(3)}-${x.ratioMax.toFixed(3)}) | ${x.bFaster}/${r.rounds} | ${x.minRatioMedian.toFixed(3)} | ${f2(x.pooledA.p90Us)} / ${f2(x.pooledB.p90Us)} |`;
  };
  return [
    `## A/B: ${r.a.rev} (${r.a.commit}) = A, working tree at ${r.b.commit}${r.b.dirty ? ' (+uncommitted core/ changes)' : ''} = B${r.quick ? ' (QUICK)' : ''}`,
    '',
    `${r.rounds} alternating rounds, each side in its own warm process; model ${r.modelVersion}; ${r.bodies} realistic bodies per pass ` +
      `(extract64k: the 64 KiB worst-case body); ` +
      `output ${r.sameOutput ? 'identical on every body' : 'DIFFERS between A and B'}.`,
    '',
    '| call | A median µs (round range) | B median µs (round range) | B / A per round: median (range) | rounds B faster | B / A of round minima | p90 µs A / B |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...AB_KINDS.map(row),
  ].join('\n');
}
