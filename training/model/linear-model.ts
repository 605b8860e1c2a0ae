import { tf } from './backend.ts';

/** Layer names are part of the export format: the service's fast path finds its weights by them. */
export const LAYER_NAMES = { weights: 'hashed_weights', output: 'output' } as const;

/**
 * The exported TF.js layers model: a linear model over hashed sparse features.
 * Inputs: `indices` [batch, k] (int32 feature buckets) and `values` [batch, k, 1] (feature values, 0 = padding).
 * logit = kernel * sum_j(W[indices_j] * values_j) + bias; output = sigmoid(logit).
 * A hashed first layer is a sum of the rows of the features present, which the service computes directly.
 */
export function buildLayersModel(dimension: number, weights: Float32Array, bias: number): tf.LayersModel {
  const indices = tf.input({ shape: [null], dtype: 'int32', name: 'indices' });
  const values = tf.input({ shape: [null, 1], name: 'values' });
  const embedded = tf.layers
    .embedding({ inputDim: dimension, outputDim: 1, name: LAYER_NAMES.weights })
    .apply(indices) as tf.SymbolicTensor;
  const dot = tf.layers.dot({ axes: 1, name: 'weighted_sum' }).apply([embedded, values]) as tf.SymbolicTensor;
  const flat = tf.layers.reshape({ targetShape: [1], name: 'logit_input' }).apply(dot) as tf.SymbolicTensor;
  const output = tf.layers.dense({ units: 1, activation: 'sigmoid', name: LAYER_NAMES.output }).apply(flat) as tf.SymbolicTensor;
  const model = tf.model({ inputs: [indices, values], outputs: output, name: 'hashed_linear' });
  model.setWeights([tf.tensor2d(weights, [dimension, 1]), tf.tensor2d([[1]]), tf.tensor1d([bias])]);
  return model;
}

export interface SparseExample {
  readonly indices: Int32Array;
  readonly values: Float32Array;
}

/** Pads a batch of sparse examples to the longest one (value 0 contributes nothing). */
export function padBatch(batch: readonly SparseExample[]): { indices: Int32Array; values: Float32Array; k: number } {
  let k = 1;
  for (const e of batch) if (e.indices.length > k) k = e.indices.length;
  const indices = new Int32Array(batch.length * k);
  const values = new Float32Array(batch.length * k);
  batch.forEach((e, row) => {
    indices.set(e.indices, row * k);
    values.set(e.values, row * k);
  });
  return { indices, values, k };
}

/** Raw (uncalibrated) spam probabilities from the TF.js model: the reference implementation. */
export function predictReference(model: tf.LayersModel, examples: readonly SparseExample[], batchSize = 256): Float32Array {
  const out = new Float32Array(examples.length);
  for (let start = 0; start < examples.length; start += batchSize) {
    const batch = examples.slice(start, start + batchSize);
    const { indices, values, k } = padBatch(batch);
    const probs = tf.tidy(() => {
      const y = model.predict([tf.tensor2d(indices, [batch.length, k], 'int32'), tf.tensor3d(values, [batch.length, k, 1])]) as tf.Tensor;
      return y.dataSync();
    });
    out.set(probs, start);
  }
  return out;
}
