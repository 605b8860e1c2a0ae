import path from 'node:path';
import { loadClassifier } from '../../core/classifier/load.ts';
import type { LinearClassifier } from '../../core/classifier/linear-classifier.ts';
import type { BenchBody } from './bodies.ts';
import { median, percentile } from './load.ts';

export interface CostStats {
  readonly calls: number;
  readonly medianUs: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

/** featurize + infer (`spamProbability`) and the route's whole call (`classify`: + the reasoning sentence). */
export interface CostPair {
  readonly infer: CostStats;
  readonly classify: CostStats;
}

export interface InProcessFigures {
  readonly modelVersion: string;
  /** Measurement chunks, spread over the run between load rounds. */
  readonly chunks: number;
  readonly realistic: CostPair;
  readonly oneKb: CostPair & {
    readonly bodies: number;
    readonly minBytes: number;
    readonly maxBytes: number;
    /** Each chunk's own 1 KB medians (µs): how far the machine's speed moved during the run. */
    readonly chunkMediansUs: { readonly infer: number[]; readonly classify: number[] };
  };
  readonly worst64k: CostPair;
  /** The route's whole call on each 64 KiB body built to be slow. */
  readonly adversarial: readonly { readonly id: string; readonly bytes: number; readonly classify: CostStats }[];
}

function stats(samplesNs: number[]): CostStats {
  const s = [...samplesNs].sort((a, b) => a - b);
  return { calls: s.length, medianUs: percentile(s, 50) / 1000, p99Us: percentile(s, 99) / 1000, maxUs: (s[s.length - 1] ?? NaN) / 1000 };
}

type Kind = 'infer' | 'classify';

/**
 * Times the route's model work in this process, per call with process.hrtime.bigint, in chunks run between
 * load rounds: the machine is shared and its speed moves over minutes, so one block at one moment would
 * measure that moment. Each chunk alternates whole passes of the two calls over the same bodies.
 */
export class InProcessMeter {
  private readonly samples = { infer: new Map<BenchBody, number[]>(), classify: new Map<BenchBody, number[]>() };
  private readonly worstSamples = { infer: [] as number[], classify: [] as number[] };
  private readonly adversarialSamples = new Map<BenchBody, number[]>();
  private readonly chunkOneKb = { infer: [] as number[], classify: [] as number[] };
  private readonly oneKb: readonly BenchBody[];
  private chunks = 0;
  private sink = 0;

  private constructor(
    private readonly classifier: LinearClassifier,
    private readonly realistic: readonly BenchBody[],
    private readonly worst: BenchBody,
    private readonly adversarial: readonly BenchBody[],
    private readonly quick: boolean,
  ) {
    for (const b of adversarial) this.adversarialSamples.set(b, []);
    for (const b of realistic) {
      this.samples.infer.set(b, []);
      this.samples.classify.set(b, []);
    }
    // "A 1 KB submission": the 40 bodies whose request size is nearest 1,024 bytes.
    this.oneKb = [...realistic].sort((a, b) => Math.abs(a.bytes - 1024) - Math.abs(b.bytes - 1024)).slice(0, 40);
  }

  static async create(
    repoRoot: string,
    realistic: readonly BenchBody[],
    worst: BenchBody,
    adversarial: readonly BenchBody[],
    quick: boolean,
  ): Promise<InProcessMeter> {
    return new InProcessMeter(await loadClassifier({ modelsDir: path.join(repoRoot, 'models') }), realistic, worst, adversarial, quick);
  }

  private call(kind: Kind, b: BenchBody): number {
    const t0 = process.hrtime.bigint();
    const r = kind === 'infer' ? this.classifier.spamProbability(b.fields) : this.classifier.classify(b.fields);
    const dt = Number(process.hrtime.bigint() - t0);
    if (r !== undefined) this.sink++;
    return dt;
  }

  /** One chunk; the first also warms up the JIT with untimed passes. Returns its 1 KB medians (µs). */
  chunk(): { infer: number; classify: number } {
    if (this.chunks === 0) {
      for (let p = 0; p < (this.quick ? 2 : 10); p++)
        for (const b of this.realistic) for (const k of ['infer', 'classify'] as const) this.call(k, b);
      for (let p = 0; p < 5; p++) for (const k of ['infer', 'classify'] as const) this.call(k, this.worst);
      for (let p = 0; p < 2; p++) for (const b of this.adversarial) this.call('classify', b);
    }
    const mine = { infer: [] as number[], classify: [] as number[] };
    const oneKb = new Set(this.oneKb);
    const passes = this.quick ? 2 : 8;
    for (let p = 0; p < passes; p++) {
      for (const k of p % 2 === 0 ? (['infer', 'classify'] as const) : (['classify', 'infer'] as const)) {
        for (const b of this.realistic) {
          const dt = this.call(k, b);
          (this.samples[k].get(b) as number[]).push(dt);
          if (oneKb.has(b)) mine[k].push(dt);
        }
      }
    }
    for (let i = 0; i < (this.quick ? 5 : 40); i++)
      for (const k of ['infer', 'classify'] as const) this.worstSamples[k].push(this.call(k, this.worst));
    for (let i = 0; i < (this.quick ? 1 : 4); i++)
      for (const b of this.adversarial) (this.adversarialSamples.get(b) as number[]).push(this.call('classify', b));
    this.chunks++;
    const medians = { infer: median(mine.infer) / 1000, classify: median(mine.classify) / 1000 };
    this.chunkOneKb.infer.push(medians.infer);
    this.chunkOneKb.classify.push(medians.classify);
    if (this.sink < 0) throw new Error('unreachable');
    return medians;
  }

  result(): InProcessFigures {
    const pooled = (k: Kind, bodies: readonly BenchBody[]) => stats(bodies.flatMap((b) => this.samples[k].get(b) as number[]));
    const pair = (bodies: readonly BenchBody[]): CostPair => ({ infer: pooled('infer', bodies), classify: pooled('classify', bodies) });
    return {
      modelVersion: this.classifier.modelVersion,
      chunks: this.chunks,
      realistic: pair(this.realistic),
      oneKb: {
        ...pair(this.oneKb),
        bodies: this.oneKb.length,
        minBytes: Math.min(...this.oneKb.map((b) => b.bytes)),
        maxBytes: Math.max(...this.oneKb.map((b) => b.bytes)),
        chunkMediansUs: { infer: [...this.chunkOneKb.infer], classify: [...this.chunkOneKb.classify] },
      },
      worst64k: { infer: stats(this.worstSamples.infer), classify: stats(this.worstSamples.classify) },
      adversarial: this.adversarial.map((b) => ({ id: b.id, bytes: b.bytes, classify: stats(this.adversarialSamples.get(b) as number[]) })),
    };
  }
}
