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
  constructor(
    readonly weights: Float32Array,
    readonly kernel: number,
    readonly bias: number,
  ) {}

  logit(x: SparseInput): number {
    const n = x.count ?? x.indices.length;
    const w = this.weights;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += (w[x.indices[i] as number] as number) * (x.values[i] as number);
    return this.kernel * sum + this.bias;
  }
}
