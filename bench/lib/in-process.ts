import path from 'node:path';
import { loadClassifier } from '../../service/classifier/load.ts';
import type { BenchBody } from './bodies.ts';
import { percentile } from './load.ts';

export interface CostStats {
  readonly calls: number;
  readonly medianUs: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

function stats(samplesNs: number[]): CostStats {
  const s = samplesNs.sort((a, b) => a - b);
  return { calls: s.length, medianUs: percentile(s, 50) / 1000, p99Us: percentile(s, 99) / 1000, maxUs: (s[s.length - 1] ?? NaN) / 1000 };
}

/** Times `fn(body)` per call with process.hrtime.bigint, after `warm` untimed passes; per-body samples. */
function time(bodies: readonly BenchBody[], passes: number, warm: number, fn: (b: BenchBody) => unknown): Map<BenchBody, number[]> {
  const samples = new Map<BenchBody, number[]>(bodies.map((b) => [b, []]));
  let sink = 0;
  for (let p = 0; p < warm + passes; p++) {
    for (const b of bodies) {
      const t0 = process.hrtime.bigint();
      const r = fn(b);
      const dt = Number(process.hrtime.bigint() - t0);
      if (r !== undefined) sink++;
      if (p >= warm) (samples.get(b) as number[]).push(dt);
    }
  }
  if (sink < 0) throw new Error('unreachable');
  return samples;
}

/**
 * featurize + infer in this process, the same call the route makes: classifier.classify(fields) (features,
 * forward pass, calibration, reasoning sentence). Also spamProbability (no reasoning) for the lead's profile.
 */
export async function measureInProcess(repoRoot: string, realistic: readonly BenchBody[], worst: BenchBody, quick: boolean) {
  const classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  const passes = quick ? 5 : 60;
  const all = time(realistic, passes, quick ? 2 : 10, (b) => classifier.classify(b.fields));
  const flat = [...all.values()].flat();
  // "A 1 KB submission": the 40 bodies whose request size is nearest 1,024 bytes.
  const oneKb = [...all.entries()].sort(([a], [b]) => Math.abs(a.bytes - 1024) - Math.abs(b.bytes - 1024)).slice(0, 40);
  const oneKbFlat = oneKb.flatMap(([, s]) => s);
  const probOnly = [...time(realistic, quick ? 3 : 20, 2, (b) => classifier.spamProbability(b.fields)).values()].flat();
  const worstSamples = time([worst], quick ? 20 : 400, quick ? 5 : 50, (b) => classifier.classify(b.fields)).get(worst) as number[];
  return {
    modelVersion: classifier.modelVersion,
    realistic: stats(flat),
    oneKb: { bodies: oneKb.length, minBytes: Math.min(...oneKb.map(([b]) => b.bytes)), maxBytes: Math.max(...oneKb.map(([b]) => b.bytes)), ...stats(oneKbFlat) },
    realisticNoReasoning: stats(probOnly),
    worst64k: stats(worstSamples),
  };
}
