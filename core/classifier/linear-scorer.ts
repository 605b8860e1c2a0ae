import type { HashedWeights } from './hashed-weights.ts';

/** Sparse features as the scorer reads them: the first `count` entries of the arrays. */
export interface SparseInput {
  readonly count?: number;
  readonly indices: Int32Array;
  readonly values: Float32Array;
}

/**
 * The exported model's forward pass computed straight from its weights: a hashed first layer is a sum
 * of the rows of the features present, so one submission costs one multiply-add per feature and no
 * tensor allocation. Must agree with the TF.js model (a test checks this on the whole test split).
 */
export class LinearScorer {
  readonly table: Uint8Array | Float32Array;
  readonly scale: number;
  readonly offset: number;

  constructor(
    weights: HashedWeights,
    readonly kernel: number,
    readonly bias: number,
  ) {
    this.table = weights.table;
    this.scale = weights.scale;
    this.offset = weights.offset;
  }

  logit(x: SparseInput): number {
    const n = x.count ?? x.indices.length;
    const w = this.table;
    const { scale, offset } = this;
    let sum = 0;
    // fround: the float32 weight TF.js dequantizes to, and what the attribution pass stores.
    for (let i = 0; i < n; i++) sum += Math.fround((w[x.indices[i] as number] as number) * scale + offset) * (x.values[i] as number);
    return this.kernel * sum + this.bias;
  }
}
