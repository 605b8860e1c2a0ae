/**
 * The hashed first layer as the service holds it: `table[i] * scale + offset` is bucket i's weight.
 * Exported models store it as TF.js uint8 affine quantization (value = q * scale + min, the format TF.js
 * itself loads), so the table the service reads per feature is 1 MB instead of 4 MB (2^20 buckets) and
 * more of it stays in cache beside the rest of a request's work. Float32 tables (older exports) read with
 * scale 1 and offset 0.
 */
export interface HashedWeights {
  readonly table: Uint8Array | Float32Array;
  readonly scale: number;
  readonly offset: number;
}

/** The code that stands for weight 0: unused buckets stay exactly 0 after quantization. */
const ZERO = 128;

export function floatWeights(values: Float32Array): HashedWeights {
  return { table: values, scale: 1, offset: 0 };
}

/**
 * Symmetric uint8 quantization with an exact zero: 255 levels over [-max|w|, +max|w|]. Training quantizes
 * before it picks the threshold and calibrates, so the reported metrics are those of the weights it ships.
 */
export function quantizeUint8(values: Float32Array): HashedWeights & { readonly table: Uint8Array } {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i] as number));
  // An all-zero table still needs a positive scale for TF.js's dequantization to be defined.
  const scale = max > 0 ? max / (ZERO - 1) : 1;
  const table = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) table[i] = ZERO + Math.round((values[i] as number) / scale);
  return { table, scale, offset: -ZERO * scale };
}

/** The float32 weights TF.js reconstructs from the table (what the reference model computes with). */
export function dequantize(w: HashedWeights): Float32Array {
  const out = new Float32Array(w.table.length);
  for (let i = 0; i < out.length; i++) out[i] = (w.table[i] as number) * w.scale + w.offset;
  return out;
}
