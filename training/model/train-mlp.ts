import { tf } from './backend.ts';
import { compactExamples, type TrainingExample } from './train-linear.ts';
import { seededRandom, shuffleInPlace } from '../data/random.ts';

export interface MlpOptions {
  readonly dimension: number;
  /** Hidden units: each bucket holds this many weights. */
  readonly hidden: number;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  /** L2 on the bucket rows (the dense layers are small and left free). */
  readonly l2: number;
  readonly seed: number;
  readonly onEpoch?: (epoch: number, loss: number) => void;
}

/**
 * A fastText-style hashed MLP: h = relu(sum_j v_j E[j] + b1), logit = w2 . h + b2. `embeddings` is the full
 * table, row-major (bucket i's row at i * hidden), unused buckets all 0.
 */
export interface MlpWeights {
  readonly hidden: number;
  readonly embeddings: Float32Array;
  readonly b1: Float32Array;
  readonly w2: Float32Array;
  readonly b2: number;
}

const BETA1 = 0.9;
const BETA2 = 0.999;
const EPS = 1e-7;

/**
 * Trains the MLP with TF.js computing each batch's loss and gradients; the bucket rows are updated with lazy Adam
 * (only the rows a batch uses, as TensorFlow's LazyAdam does), because dense Adam over every used bucket's row
 * at every step cost H times the linear model's training and broke the 2-minute training budget.
 */
export function trainMlp(all: readonly TrainingExample[], opts: MlpOptions): MlpWeights {
  const H = opts.hidden;
  const { examples, used } = compactExamples(all, opts.dimension);
  const U = Math.max(1, used.length);
  const random = seededRandom(opts.seed);
  // fastText initialises rows uniformly in +-1/H; a sum of ~100 small values then starts the ReLUs near their kink.
  const E = new Float32Array(U * H).map(() => (random() * 2 - 1) * 0.1);
  const mE = new Float32Array(U * H);
  const vE = new Float32Array(U * H);
  const stepOf = new Int32Array(U);
  const dense = {
    b1: new Float32Array(H),
    w2: new Float32Array(H).map(() => (random() * 2 - 1) * Math.sqrt(6 / (H + 1))),
    b2: new Float32Array(1),
  };
  const denseM = { b1: new Float32Array(H), w2: new Float32Array(H), b2: new Float32Array(1) };
  const denseV = { b1: new Float32Array(H), w2: new Float32Array(H), b2: new Float32Array(1) };
  const order = examples.map((_, i) => i);
  let step = 0;
  // TF.js computes the network from each example's bag (the value-weighted sum of its rows) and the gradients
  // back to the bags; a bag's gradient reaches row j times v_j, which is summed per bucket here.
  const grad = tf.valueAndGrads((S: tf.Tensor, b1: tf.Tensor, w2: tf.Tensor, b2: tf.Tensor, y: tf.Tensor, w: tf.Tensor) => {
    const h = tf.relu(tf.add(S, b1));
    const z = tf.add(tf.squeeze(tf.matMul(h, tf.reshape(w2, [H, 1])), [1]), b2);
    const ce = tf.add(tf.sub(tf.relu(z), tf.mul(z, y)), tf.log1p(tf.exp(tf.neg(tf.abs(z)))));
    return tf.div(tf.sum(tf.mul(ce, w)), tf.sum(w)) as tf.Scalar;
  });
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, random);
    let lossSum = 0;
    let batches = 0;
    for (let start = 0; start < order.length; start += opts.batchSize) {
      const batch = order.slice(start, start + opts.batchSize).map((i) => examples[i] as TrainingExample);
      const B = batch.length;
      const bags = new Float32Array(B * H);
      batch.forEach((e, r) => {
        for (let j = 0; j < e.indices.length; j++) {
          const row = (e.indices[j] as number) * H;
          const v = e.values[j] as number;
          for (let c = 0; c < H; c++) bags[r * H + c]! += (E[row + c] as number) * v;
        }
      });
      step++;
      const [gS, gb1, gw2, gb2, loss] = tf.tidy(() => {
        const S = tf.tensor2d(bags, [B, H]);
        const y = tf.tensor1d(Float32Array.from(batch, (e) => e.label));
        const w = tf.tensor1d(Float32Array.from(batch, (e) => e.weight));
        const { value, grads } = grad([S, tf.tensor1d(dense.b1), tf.tensor1d(dense.w2), tf.scalar(dense.b2[0] as number), y, w]);
        return [grads[0]!.dataSync(), grads[1]!.dataSync(), grads[2]!.dataSync(), grads[3]!.dataSync(), value.dataSync()] as Float32Array[];
      });
      lossSum += (loss as Float32Array)[0] as number;
      batches++;
      // The rows' gradients summed per bucket, then one lazy Adam step per bucket the batch touched.
      const rowGrad = new Map<number, Float32Array>();
      batch.forEach((e, r) => {
        for (let j = 0; j < e.indices.length; j++) {
          const u = e.indices[j] as number;
          let g = rowGrad.get(u);
          if (!g) rowGrad.set(u, (g = new Float32Array(H)));
          const v = e.values[j] as number;
          for (let c = 0; c < H; c++) g[c]! += ((gS as Float32Array)[r * H + c] as number) * v;
        }
      });
      const lr = opts.learningRate;
      for (const [u, g] of rowGrad) {
        const t = ++stepOf[u]!;
        const c1 = 1 - BETA1 ** t;
        const c2 = 1 - BETA2 ** t;
        for (let c = 0; c < H; c++) {
          const i = u * H + c;
          const gi = (g[c] as number) + 2 * opts.l2 * (E[i] as number);
          mE[i] = BETA1 * (mE[i] as number) + (1 - BETA1) * gi;
          vE[i] = BETA2 * (vE[i] as number) + (1 - BETA2) * gi * gi;
          E[i]! -= (lr * ((mE[i] as number) / c1)) / (Math.sqrt((vE[i] as number) / c2) + EPS);
        }
      }
      adam(dense.b1, gb1 as Float32Array, denseM.b1, denseV.b1, step, lr);
      adam(dense.w2, gw2 as Float32Array, denseM.w2, denseV.w2, step, lr);
      adam(dense.b2, gb2 as Float32Array, denseM.b2, denseV.b2, step, lr);
    }
    opts.onEpoch?.(epoch + 1, lossSum / Math.max(1, batches));
  }
  const embeddings = new Float32Array(opts.dimension * H);
  used.forEach((full, j) => embeddings.set(E.subarray(j * H, j * H + H), full * H));
  return { hidden: H, embeddings, b1: dense.b1, w2: dense.w2, b2: dense.b2[0] as number };
}

function adam(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, t: number, lr: number): void {
  const c1 = 1 - BETA1 ** t;
  const c2 = 1 - BETA2 ** t;
  for (let i = 0; i < p.length; i++) {
    const gi = g[i] as number;
    m[i] = BETA1 * (m[i] as number) + (1 - BETA1) * gi;
    v[i] = BETA2 * (v[i] as number) + (1 - BETA2) * gi * gi;
    p[i]! -= (lr * ((m[i] as number) / c1)) / (Math.sqrt((v[i] as number) / c2) + EPS);
  }
}

/** The MLP's logit for one sparse input, in float64 over the given weights (training-side scoring). */
export function mlpLogit(
  m: MlpWeights,
  x: { readonly indices: Int32Array; readonly values: Float32Array },
  acc = new Float64Array(m.hidden),
): number {
  const H = m.hidden;
  for (let c = 0; c < H; c++) acc[c] = m.b1[c] as number;
  for (let j = 0; j < x.indices.length; j++) {
    const row = (x.indices[j] as number) * H;
    const v = x.values[j] as number;
    for (let c = 0; c < H; c++) acc[c]! += (m.embeddings[row + c] as number) * v;
  }
  let z = m.b2;
  for (let c = 0; c < H; c++) if ((acc[c] as number) > 0) z += (acc[c] as number) * (m.w2[c] as number);
  return z;
}
