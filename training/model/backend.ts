import * as tf from '@tensorflow/tfjs';

export const BACKENDS = ['wasm', 'cpu', 'tensorflow'] as const;
export type BackendName = (typeof BACKENDS)[number];

export function isBackendName(name: string): name is BackendName {
  return (BACKENDS as readonly string[]).includes(name);
}

/** A backend was asked for by name and this machine cannot run it. */
export class BackendError extends Error {
  override name = 'BackendError';
}

/**
 * The fastest TF.js backend this machine has: tfjs-node when installed (optional, its install downloads
 * libtensorflow), else WASM (ships its .wasm files; about 10x faster than plain JS here), else 'cpu'.
 * A backend asked for by name is that backend or a BackendError: falling back would hide a slower run.
 */
export async function initBackend(preferred?: BackendName): Promise<string> {
  if (!preferred || preferred === 'tensorflow') {
    try {
      await import(/* optional */ '@tensorflow/tfjs-node' as string);
      if (await tf.setBackend('tensorflow')) return tf.getBackend();
      if (preferred) throw new BackendError('@tensorflow/tfjs-node is installed but its backend did not start');
    } catch (e) {
      if (preferred) throw tensorflowError(e);
      // not installed: fall through
    }
  }
  if (!preferred || preferred === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
    if (await tf.setBackend('wasm')) {
      await tf.ready();
      return tf.getBackend();
    }
    if (preferred) throw new BackendError('the wasm backend did not start (try --backend cpu)');
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return tf.getBackend();
}

function tensorflowError(e: unknown): BackendError {
  if (e instanceof BackendError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    return new BackendError('@tensorflow/tfjs-node is not installed (npm install @tensorflow/tfjs-node, or use --backend wasm or cpu)');
  }
  return new BackendError(`@tensorflow/tfjs-node did not load: ${(e as Error).message}`);
}

export { tf };
