import type { FormFields } from './form-fields.ts';
import { isTextual, scanChars } from './char-stats.ts';
import { emptyFacts, senderAddressOf, type Facts } from './facts.ts';
import { fairShares } from './fair-shares.ts';
import { flattenFields, type FieldText } from './flatten.ts';
import { hashString } from './hash.ts';
import { appendLinkContextIds } from './link-context.ts';
import { KIND } from './kinds.ts';
import { scanObfuscatedLinks } from './obfuscated-links.ts';
import type { FieldRole } from './roles.ts';
import { ScanState } from './scan-state.ts';
import { featureVersion, type FeatureSettings } from './settings.ts';
import { SparseAccumulator } from './sparse-accumulator.ts';
import { structureIds } from './structure.ts';
import { newTokenTable, scanTokens } from './tokenizer.ts';

// What reads each field, in this order (the order fixes the feature slots): char-stats.ts (character statistics,
// character n-grams, and the link and email runs link-heuristics.ts judges), obfuscated-links.ts, tokenizer.ts.
// They share one ScanState; the sparse vector they fill is sparse-accumulator.ts.

const NS_STRUCT = hashString('s|');

// Structure ids are a small fixed vocabulary of constant strings: hash each once.
const STRUCTURE_HASHES = new Map<string, number>();
function structureHash(id: string): number {
  let h = STRUCTURE_HASHES.get(id);
  if (h === undefined) STRUCTURE_HASHES.set(id, (h = hashString(id, NS_STRUCT)));
  return h;
}

/** Field index marking a feature that points into `structure`, not into a field's text. */
export const STRUCTURE_FIELD = -1;

/**
 * The sparse feature vector of one submission, plus where each feature first occurred so the
 * reasoning can name it. A view into the extractor's buffers: valid until its next `extract`.
 */
export interface Features {
  readonly count: number;
  readonly indices: Int32Array;
  readonly values: Float32Array;
  readonly kinds: Uint8Array;
  /** Field index of the first occurrence, or STRUCTURE_FIELD. */
  readonly fields: Int32Array;
  /** Start/end in the lower-cased field text; for structure features, start indexes `structure`. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly texts: readonly string[];
  readonly roles: readonly FieldRole[];
  readonly structure: readonly string[];
  readonly facts: Facts;
}

/**
 * The one place that turns form fields into model input, for training and serving alike.
 * Not re-entrant: it reuses its buffers, so one instance serves one synchronous caller at a time.
 */
export class FeatureExtractor {
  readonly settings: FeatureSettings;
  readonly version: string;
  readonly dimension: number;
  private readonly acc: SparseAccumulator;
  private readonly scan: ScanState;
  private flat: FieldText[] = [];
  private texts: string[] = [];
  private roles: FieldRole[] = [];

  constructor(settings: FeatureSettings) {
    this.settings = settings;
    this.version = featureVersion(settings);
    this.dimension = 1 << settings.hashBits;
    this.acc = new SparseAccumulator(settings.hashBits);
    this.scan = new ScanState(settings, this.acc, newTokenTable());
  }

  extract(input: FormFields): Features {
    const acc = this.acc;
    const scan = this.scan;
    acc.reset();
    const facts = (scan.facts = emptyFacts());
    const flat = flattenFields(input, this.flat, this.settings.maxChars);
    this.texts = [];
    this.roles = [];
    let total = 0;
    for (const f of flat) if (f.role !== 'honeypot') total += f.text.length;
    const shares =
      total > this.settings.maxChars
        ? fairShares(
            flat.map((f) => (f.role === 'honeypot' ? 0 : f.text.length)),
            this.settings.maxChars,
          )
        : null;
    for (let fi = 0; fi < flat.length; fi++) {
      const field = flat[fi] as FieldText;
      this.roles.push(field.role);
      if (field.role === 'honeypot') {
        this.texts.push('');
        if (field.text.trim() !== '') facts.honeypot = 'filled';
        else if (facts.honeypot === 'none') facts.honeypot = 'empty';
        continue;
      }
      let text = field.text;
      const share = shares?.[fi];
      if (share !== undefined && text.length > share) {
        text = text.slice(0, share);
        facts.truncated = true;
      }
      const lower = lowerCase(text);
      this.texts.push(lower);
      if (lower.length === 0) continue;
      facts.fields++;
      if (field.role === 'email' && facts.senderAddress === null) facts.senderAddress = senderAddressOf(lower);
      scanChars(scan, text, lower, fi, field.role);
      if (this.settings.obfuscatedLinks && (isTextual(field.role) || field.role === 'email'))
        scanObfuscatedLinks(scan, lower, fi, field.role);
      scanTokens(scan, lower, fi, field.role);
    }
    facts.repeatedFieldText = hasRepeatedText(flat, this.texts);
    const structure = this.settings.structure ? structureIds(facts, this.settings.scriptFeatures !== false) : [];
    if (this.settings.structure && this.settings.linkContext)
      appendLinkContextIds(facts, structure, this.settings.linkCounts !== false, this.settings.linkOwnSite !== false);
    for (let s = 0; s < structure.length; s++) {
      acc.add(structureHash(structure[s] as string), KIND.structure, STRUCTURE_FIELD, s, s, true);
    }
    acc.finish(this.settings.normFloor ?? 0);
    return {
      count: acc.count,
      indices: acc.indices,
      values: acc.values,
      kinds: acc.kinds,
      fields: acc.fields,
      starts: acc.starts,
      ends: acc.ends,
      texts: this.texts,
      roles: this.roles,
      structure,
      facts,
    };
  }

  /** A copy that outlives the next `extract` (training keeps every example). */
  extractCopy(input: FormFields): { indices: Int32Array; values: Float32Array } {
    const f = this.extract(input);
    return { indices: f.indices.slice(0, f.count), values: f.values.slice(0, f.count) };
  }
}

/** Lower case of the same length: Turkish `İ` lower-cases to two code units in JavaScript and would shift every index after it. */
function lowerCase(text: string): string {
  return text.indexOf('\u0130') < 0 ? text.toLowerCase() : text.replaceAll('\u0130', 'I').toLowerCase();
}

/** Two name or message fields with the same text of 3+ characters (name = subject = message). */
function hasRepeatedText(flat: readonly FieldText[], texts: readonly string[]): boolean {
  for (let a = 0; a < flat.length; a++) {
    const ta = (texts[a] ?? '').trim();
    if (ta.length < 3 || !isPersonText((flat[a] as FieldText).role)) continue;
    for (let b = a + 1; b < flat.length; b++) {
      if (isPersonText((flat[b] as FieldText).role) && (texts[b] ?? '').trim() === ta) return true;
    }
  }
  return false;
}

function isPersonText(role: FieldRole): boolean {
  return role === 'name' || role === 'message';
}
