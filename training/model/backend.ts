import * as tf from '@tensorflow/tfjs';

/**
 * The fastest TF.js backend this machine has: tfjs-node when installed (optional, its install downloads
 * libtensorflow), else WASM (ships its .wasm files; about 10x faster than plain JS here), else 'cpu'.
 */
export async function initBackend(preferred?: string): Promise<string> {
  if (!preferred || preferred === 'tensorflow') {
    try {
      await import(/* optional */ '@tensorflow/tfjs-node' as string);
      if (await tf.setBackend('tensorflow')) return tf.getBackend();
    } catch {
      // not installed: fall through
    }
  }
  if (!preferred || preferred === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
    if (await tf.setBackend('wasm')) {
      await tf.ready();
      return tf.getBackend();
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return tf.getBackend();
}

export { tf };
