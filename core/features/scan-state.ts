import { emptyFacts, type Facts } from './facts.ts';
import type { FeatureSettings } from './settings.ts';
import type { SparseAccumulator } from './sparse-accumulator.ts';
import type { TokenTable } from './token-info.ts';

/**
 * What the scanners of one extraction (char-stats, link-heuristics, obfuscated-links, email-heuristics, tokenizer)
 * read and write: the settings, the sparse vector, the facts. One class for all of them, so the property reads on
 * the hot path see one shape and stay monomorphic. Owned by one FeatureExtractor, reused across its extractions.
 */
export class ScanState {
  facts: Facts = emptyFacts();
  /** End of the last link measured in the current field: links sharing one run of URL characters count once. */
  linkEnd = 0;
  /**
   * settings.charNgramSizes in its order, as a typed array: the settings' array is frozen, and optimized code reads a
   * frozen array's elements through a generic keyed load (a call per character of every field).
   */
  readonly charNgramSizes: Int32Array;

  constructor(
    readonly settings: FeatureSettings,
    readonly acc: SparseAccumulator,
    readonly tokens: TokenTable,
  ) {
    this.charNgramSizes = Int32Array.from(settings.charNgramSizes);
  }
}
