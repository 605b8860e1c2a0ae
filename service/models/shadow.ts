import type { RedisClient } from '../config/redis-target.ts';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { recordPair, ShadowKeys, type ShadowPair } from '../../core/classifier/shadow-store.ts';

/** Where a scored pair goes beyond this process's metrics: Redis with REDIS_URL, nowhere without. */
export interface ShadowSink {
  /** `inReview`: the submission went to the review queue, so a label may come; only then is the pair itself kept. */
  record(pair: ShadowPair, inReview: boolean): Promise<void>;
}

export interface ShadowMetrics {
  readonly scored: Counter<'version'>;
  readonly agreed: Counter<'version'>;
  readonly disagreed: Counter<'version' | 'active' | 'shadow'>;
}

export function shadowMetrics(registry: Registry): ShadowMetrics {
  const registers = [registry];
  return {
    scored: new Counter({ name: 'formguard_shadow_scored_total', help: 'Verified submissions also scored by the shadow model (after the answer), by shadow version', labelNames: ['version'], registers }),
    agreed: new Counter({ name: 'formguard_shadow_agreed_total', help: 'Shadow-scored submissions on which both models gave the same verdict', labelNames: ['version'], registers }),
    disagreed: new Counter({
      name: 'formguard_shadow_disagreed_total',
      help: 'Shadow-scored submissions on which the models disagreed, by verdict pair (active: the answer given; shadow: what the shadow said)',
      labelNames: ['version', 'active', 'shadow'],
      registers,
    }),
  };
}

/** Counts pairs in Redis (shared by every instance), per account and form; a failed write costs only that count. */
export class RedisShadowSink implements ShadowSink {
  readonly #keys: ShadowKeys;
  #lastWarn = 0;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly log: Logger,
  ) {
    this.#keys = new ShadowKeys(prefix);
  }

  async record(pair: ShadowPair, inReview: boolean): Promise<void> {
    if (this.redis.status !== 'ready') return;
    try {
      await recordPair(this.redis, this.#keys, pair, inReview);
    } catch (err) {
      if (Date.now() - this.#lastWarn < 10_000) return;
      this.#lastWarn = Date.now();
      this.log.warn({ err }, 'shadow: counts not written to Redis (the process metrics still have them)');
    }
  }
}
