import { tf } from './backend.ts';
import { padBatch, type SparseExample } from './linear-model.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';

export interface TrainingExample extends SparseExample {
  readonly label: 0 | 1;
  readonly weight: number;
}

export interface TrainOptions {
  readonly dimension: number;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly l2: number;
  readonly seed: number;
  readonly onEpoch?: (epoch: number, loss: number) => void;
  readonly onBatch?: (done: number, total: number) => void;
}

export interface LinearWeights {
  readonly weights: Float32Array;
  readonly bias: number;
}

/**
 * gather(W, idx) whose gradient is a scatter-add of the incoming gradient: one pass over the batch's
 * features. TF.js's default (UnsortedSegmentSum) loops over every bucket of W on the CPU backend and is
 * missing on WASM.
 */
function sparseLookup(dimension: number) {
  return tf.customGrad(((W: tf.Tensor, idx: tf.Tensor, save: tf.GradSaveFunc) => {
    save([idx]);
    return {
      value: tf.gather(W, idx),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const flatIdx = tf.reshape(saved[0] as tf.Tensor, [-1, 1]);
        return [tf.scatterND(flatIdx, tf.reshape(dy, [-1]), [dimension]), tf.zerosLike(saved[0] as tf.Tensor)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (W: tf.Tensor, idx: tf.Tensor) => tf.Tensor;
}

/**
 * The examples re-indexed onto the buckets they use: Adam updates every weight of W at every step, and a bucket
 * no example holds keeps weight 0 anyway (zero gradient, zero L2 pull), so training on the used ones alone gives
 * the same model for a fraction of the work. `used[j]` is compact bucket j's place in the full table.
 */
export function compactExamples(
  examples: readonly TrainingExample[],
  dimension: number,
): { examples: TrainingExample[]; used: Int32Array } {
  const slot = new Int32Array(dimension).fill(-1);
  const used: number[] = [];
  const compact = examples.map((e) => {
    const indices = new Int32Array(e.indices.length);
    for (let i = 0; i < indices.length; i++) {
      const full = e.indices[i] as number;
      if (slot[full] === -1) slot[full] = used.push(full) - 1;
      indices[i] = slot[full] as number;
    }
    return { ...e, indices };
  });
  return { examples: compact, used: Int32Array.from(used) };
}

/** Weighted logistic regression on hashed sparse features, trained with Adam in TF.js. */
export function trainLinear(all: readonly TrainingExample[], opts: TrainOptions): LinearWeights {
  const { examples, used } = compactExamples(all, opts.dimension);
  const dimension = Math.max(1, used.length);
  const W = tf.variable(tf.zeros([dimension]), true, 'W');
  const b = tf.variable(tf.scalar(0), true, 'b');
  const optimizer = tf.train.adam(opts.learningRate);
  const lookup = sparseLookup(dimension);
  const random = seededRandom(opts.seed);
  const order = examples.map((_, i) => i);
  const batches = Math.ceil(examples.length / opts.batchSize);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, random);
    let lossSum = 0;
    for (let bi = 0; bi < batches; bi++) {
      const batch = order.slice(bi * opts.batchSize, (bi + 1) * opts.batchSize).map((i) => examples[i] as TrainingExample);
      const { indices, values, k } = padBatch(batch);
      const y = Float32Array.from(batch, (e) => e.label);
      const w = Float32Array.from(batch, (e) => e.weight);
      const loss = tf.tidy(() => {
        const idxT = tf.tensor2d(indices, [batch.length, k], 'int32');
        const valT = tf.tensor2d(values, [batch.length, k]);
        const yT = tf.tensor1d(y);
        const wT = tf.tensor1d(w);
        const cost = optimizer.minimize(
          () => {
            const z = tf.add(tf.sum(tf.mul(lookup(W, idxT), valT), 1), b);
            // Numerically stable sigmoid cross-entropy: max(z,0) - z*y + log(1 + e^-|z|).
            const ce = tf.add(tf.sub(tf.relu(z), tf.mul(z, yT)), tf.log1p(tf.exp(tf.neg(tf.abs(z)))));
            const data = tf.div(tf.sum(tf.mul(ce, wT)), tf.sum(wT));
            return tf.add(data, tf.mul(opts.l2, tf.sum(tf.square(W)))) as tf.Scalar;
          },
          true,
          [W, b],
        );
        return (cost as tf.Scalar).dataSync()[0] as number;
      });
      lossSum += loss;
      opts.onBatch?.(epoch * batches + bi + 1, opts.epochs * batches);
    }
    opts.onEpoch?.(epoch + 1, lossSum / batches);
  }
  const compact = W.dataSync();
  const weights = new Float32Array(opts.dimension);
  used.forEach((full, j) => (weights[full] = compact[j] as number));
  const bias = b.dataSync()[0] as number;
  W.dispose();
  b.dispose();
  optimizer.dispose();
  return { weights, bias };
}
