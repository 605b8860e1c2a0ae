import type { FeatureExtractor } from '../../core/features/index.ts';
import {
  ACCOUNTS_FILE_VERSION,
  MAX_THRESHOLD_SHIFT,
  type AccountsFile,
  type StoredCorrection,
} from '../../core/classifier/account-corrections.ts';
import type { LabelledRecord } from '../data/record.ts';
import { sigmoid } from '../../core/classifier/sigmoid.ts';
import {
  correctionLogit,
  DEFAULT_CORRECTION,
  fitAccountCorrection,
  type AccountCorrection,
  type AccountExample,
  type CorrectionOptions,
} from './account-correction.ts';

/**
 * An account gets a correction from this many labels on. Below it, a correction fitted on an account's first labels
 * lowered that account's F1 or raised its false-positive rate on its later submissions too often (docs/model.md,
 * "Per-account corrections").
 */
export const MIN_ACCOUNT_LABELS = 20;

/**
 * Weights smaller than this are not exported: a feature's value is about 0.1, so such a weight moves a submission's
 * log-odds by a thousandth, and every bucket kept costs the service a lookup (bench/entries/account-correction.ts).
 */
export const MIN_CORRECTION_WEIGHT = 0.01;

/** How an account's own threshold is chosen (see thresholdShift); `none`: the model's. */
export const ACCOUNT_THRESHOLD_RULES = ['none', 'flags', 'mean', 'soft'] as const;
export type AccountThresholdRule = (typeof ACCOUNT_THRESHOLD_RULES)[number];

/**
 * With a threshold rule, an account needs this many genuine labels: a video's first 25 comments can all be spam, and
 * a correction fitted on them alone flagged that site's later genuine comments twice as often (docs/model.md).
 */
export const MIN_GENUINE_LABELS = 5;

/**
 * The pull of the correction's weights towards zero, 1,000 times the fitter's default: weaker pulls learnt an account's
 * spam faster but flagged its genuine mail far more often (docs/model.md, "Per-account corrections").
 */
export const CORRECTION_L2 = 1;

export interface CorrectionSettings extends CorrectionOptions {
  readonly minLabels: number;
  readonly minWeight: number;
  /**
   * The pulls (l2) tried for each account, chosen by cross-validation over that account's own labels (see
   * chooseCorrection); empty: `l2` for every account and no such check, as before.
   */
  readonly l2Grid: readonly number[];
  /** The bias pulls tried beside each of l2Grid's (empty: `biasL2` alone). */
  readonly biasL2Grid: readonly number[];
  /**
   * How the account's labels are held out: `interleaved` (every fifth label, early and late alike) or `forward`
   * (the labels in arrival order in five blocks; each block scored by a correction fitted on the blocks before it,
   * as a customer's later submissions are scored by a correction fitted on its earlier labels).
   */
  readonly folds?: 'interleaved' | 'forward';
  /** What a legitimate item flagged costs on the held-out labels, a missed spam costing 1 (default 1). */
  readonly flagCost?: number;
  /**
   * The account's own threshold, above the model's, chosen from the chosen pull's held-out scores (thresholdShift):
   * `none` (the model's threshold, the default), `flags`, `mean` or `soft`. Measured in docs/model.md ("An account's
   * own threshold"): none of them held the labelling account's false-positive rate at the global model's at every
   * step, so none is the default. A fixed pull (empty l2Grid) has no held-out scores to choose from: no threshold.
   */
  readonly threshold?: AccountThresholdRule;
  /** The most the account's threshold may be raised, in calibrated log-odds (at most MAX_THRESHOLD_SHIFT). */
  readonly maxThresholdShift?: number;
  /**
   * With a threshold rule: an account with fewer genuine labels than this keeps the global model, since its labels
   * cannot show how often its correction would flag its genuine mail (default MIN_GENUINE_LABELS).
   */
  readonly minGenuineLabels?: number;
}

/**
 * From the strong pull that moved nothing for a customer (1) to one 300 times weaker: which one an account gets is
 * its own labels' evidence, not one penalty for all.
 */
export const L2_GRID: readonly number[] = Object.freeze([1, 0.3, 0.1, 0.03, 0.01, 0.003]);

export const DEFAULT_CORRECTION_SETTINGS: CorrectionSettings = Object.freeze({
  ...DEFAULT_CORRECTION,
  l2: CORRECTION_L2,
  minLabels: MIN_ACCOUNT_LABELS,
  minWeight: MIN_CORRECTION_WEIGHT,
  l2Grid: L2_GRID,
  // A hard pull (1) keeps a run of spam among the first labels from flagging the account's genuine mail; a weaker one
  // lets an account whose policy differs move its whole site, if its own held-out labels say so.
  biasL2Grid: Object.freeze([1, 0.1]),
});

/**
 * One correction per account with at least `minLabels` labels, each fitted on that account's labels alone over the
 * frozen global model's calibrated log-odds (`globalLogit`), so nothing of one account reaches another's correction.
 * Accounts in id order, so the same labels give the same file.
 */
export function fitAccountCorrections(
  byAccount: ReadonlyMap<string, readonly LabelledRecord[]>,
  extractor: FeatureExtractor,
  globalLogit: (x: { indices: Int32Array; values: Float32Array }) => number,
  settings: CorrectionSettings = DEFAULT_CORRECTION_SETTINGS,
  /** The model's threshold as calibrated log-odds: a correction must give fewer wrong verdicts than the model alone. */
  decisionLogit = 0,
): AccountsFile {
  const accounts: Record<string, StoredCorrection> = {};
  for (const id of [...byAccount.keys()].sort()) {
    const labels = byAccount.get(id) as readonly LabelledRecord[];
    if (labels.length < settings.minLabels) continue;
    const examples: AccountExample[] = labels.map((r) => {
      const x = extractor.extractCopy(r.fields);
      return { ...x, globalLogit: globalLogit(x), label: r.label === 'spam' ? 1 : 0 };
    });
    const c = accountCorrection(examples, settings, decisionLogit);
    // Its correction did not beat the global model on its own held-out labels: the account keeps the global model.
    if (c === null) continue;
    accounts[id] = {
      labels: c.labels,
      bias: c.bias,
      ...(c.thresholdShift === undefined ? {} : { thresholdShift: c.thresholdShift }),
      buckets: [...c.indices],
      weights: [...c.weights],
    };
  }
  // Version 2 only when a shift needs it: a file without one stays readable by services from before shifts.
  const shifted = Object.values(accounts).some((c) => c.thresholdShift !== undefined);
  return shifted ? { version: ACCOUNTS_FILE_VERSION, accounts } : { accounts };
}

/**
 * One account's correction as training exports it (pull chosen from its own labels, small weights pruned), or null
 * when none beat the global model on its held-out labels. The learning curve calls this too, so it measures what ships.
 */
export function accountCorrection(
  examples: readonly AccountExample[],
  settings: CorrectionSettings = DEFAULT_CORRECTION_SETTINGS,
  decisionLogit = 0,
): AccountCorrection | null {
  const chosen =
    settings.l2Grid.length === 0 ? { l2: settings.l2, biasL2: settings.biasL2 } : chooseCorrection(examples, settings, decisionLogit);
  if (chosen === null) return null;
  const c = pruned(fitAccountCorrection(examples, { ...settings, l2: chosen.l2, biasL2: chosen.biasL2 }), settings.minWeight);
  const mode = settings.threshold ?? 'none';
  if (mode === 'none' || !('scored' in chosen)) return c;
  const genuine = examples.filter((e) => e.label === 0).length;
  if (genuine < (settings.minGenuineLabels ?? MIN_GENUINE_LABELS)) return null;
  const shift = thresholdShift(
    chosen.scored,
    decisionLogit,
    mode,
    Math.min(MAX_THRESHOLD_SHIFT, settings.maxThresholdShift ?? MAX_THRESHOLD_SHIFT),
  );
  // Raised that far, the correction must still give fewer wrong verdicts on the held-out labels than the model alone.
  const wrong = wrongVerdicts(
    chosen.scored.map(({ e, z }) => ({ e, z: z - shift })),
    decisionLogit,
    settings.flagCost ?? 1,
  );
  if (wrong >= chosen.globalWrong) return null;
  return shift === 0 ? c : { ...c, thresholdShift: shift };
}

/**
 * How far to raise an account's threshold, from its held-out labels scored by corrections that never saw them: `flags`,
 * the least raise under which no more of its genuine labels are flagged than the global model alone flags; `mean`, the
 * correction's mean push on its genuine labels (what it adds to their log-odds, on average), so that it lifts its
 * genuine mail no closer to the threshold than the global model puts it; `soft`, the least raise under which its
 * genuine labels' summed chance of being flagged is the global model's. Never below 0, never above `max`; 0 for an
 * account without genuine labels (accountCorrection refuses those before asking).
 */
export function thresholdShift(
  scored: readonly { e: AccountExample; z: number }[],
  decisionLogit: number,
  mode: 'flags' | 'mean' | 'soft',
  max = MAX_THRESHOLD_SHIFT,
): number {
  const genuine = scored.filter(({ e }) => e.label === 0);
  if (genuine.length === 0) return 0;
  let shift: number;
  if (mode === 'soft') {
    // Each genuine label counts by its chance of being flagged (its probability measured from the threshold), so
    // those near the threshold weigh most: the least raise that keeps their sum at the global model's.
    const expected = (d: number, z: (x: { e: AccountExample; z: number }) => number) =>
      genuine.reduce((s, x) => s + (x.e.weight ?? 1) * sigmoid(z(x) - d - decisionLogit), 0);
    const target = expected(0, ({ e }) => e.globalLogit);
    const over = (d: number) => expected(d, ({ z }) => z) > target + 1e-9;
    if (!over(0)) shift = 0;
    else if (over(max)) shift = max;
    else {
      let lo = 0;
      let hi = max;
      for (let i = 0; i < 40; i++) [lo, hi] = over((lo + hi) / 2) ? [(lo + hi) / 2, hi] : [lo, (lo + hi) / 2];
      shift = hi;
    }
  } else if (mode === 'mean') {
    const w = genuine.reduce((s, { e }) => s + (e.weight ?? 1), 0);
    shift = genuine.reduce((s, { e, z }) => s + (e.weight ?? 1) * (z - e.globalLogit), 0) / w;
  } else {
    const flagged = (d: number) => genuine.reduce((s, { e, z }) => s + (z - d >= decisionLogit ? (e.weight ?? 1) : 0), 0);
    const globalFlagged = genuine.reduce((s, { e }) => s + (e.globalLogit >= decisionLogit ? (e.weight ?? 1) : 0), 0);
    // The candidates: no raise, or just past one genuine label's corrected log-odds (the least raise that unflags it).
    const candidates = [0, ...genuine.map(({ z }) => z - decisionLogit + 1e-6).filter((d) => d > 0)].sort((a, b) => a - b);
    shift = candidates.find((d) => flagged(d) <= globalFlagged) ?? max;
  }
  return Math.min(max, Math.max(0, shift));
}

/** Folds of an account's labels for choosing its pull: each label is held out once. */
export const CORRECTION_FOLDS = 5;

export interface ChosenCorrection {
  readonly l2: number;
  readonly biasL2: number;
  /** Weighted wrong verdicts on the held-out folds, with the correction and of the global model alone. */
  readonly wrong: number;
  readonly globalWrong: number;
  /** Mean log-loss on the held-out folds: with the correction, and of the global model alone on the same labels. */
  readonly loss: number;
  readonly globalLoss: number;
  /** The held-out labels with their log-odds under the correction that did not see them. */
  readonly scored: readonly { readonly e: AccountExample; readonly z: number }[];
}

/**
 * The pull from `settings.l2Grid` whose corrections, each fitted on four fifths of the account's labels, scored the
 * other fifth best (mean log-loss over the five folds; folds interleave the labels in arrival order, so each holds
 * early and late ones), among the pulls that gave fewer wrong verdicts there than the global model alone (at
 * `decisionLogit`); null when none did: a correction that only makes the same verdicts surer is no gain to a customer.
 */
export function chooseCorrection(
  examples: readonly AccountExample[],
  settings: CorrectionSettings,
  decisionLogit = 0,
): ChosenCorrection | null {
  const folds = Math.min(CORRECTION_FOLDS, examples.length);
  const forward = settings.folds === 'forward';
  // Forward: block k holds labels [k*n/folds, (k+1)*n/folds) and is scored from the blocks before it (block 0 never).
  const blockOf = (i: number) => Math.floor((i * folds) / examples.length);
  const held = (i: number, k: number) => (forward ? blockOf(i) === k : i % folds === k);
  const fitted = (i: number, k: number) => (forward ? blockOf(i) < k : i % folds !== k);
  const scoredOnes = examples.filter((_, i) => !forward || blockOf(i) > 0);
  const flagCost = settings.flagCost ?? 1;
  const globalScored = scoredOnes.map((e) => ({ e, z: e.globalLogit }));
  const globalLoss = meanLoss(globalScored);
  const globalWrong = wrongVerdicts(globalScored, decisionLogit, flagCost);
  let best: ChosenCorrection | null = null;
  const biasPulls = settings.biasL2Grid.length === 0 ? [settings.biasL2] : settings.biasL2Grid;
  for (const [l2, biasL2] of settings.l2Grid.flatMap((l) => biasPulls.map((b) => [l, b] as const))) {
    const scored: { e: AccountExample; z: number }[] = [];
    for (let k = forward ? 1 : 0; k < folds; k++) {
      const train = examples.filter((_, i) => fitted(i, k));
      const c = fitAccountCorrection(train, { ...settings, l2, biasL2 });
      examples.forEach((e, i) => {
        if (held(i, k)) scored.push({ e, z: e.globalLogit + correctionLogit(c, e) });
      });
    }
    const loss = meanLoss(scored);
    const wrong = wrongVerdicts(scored, decisionLogit, flagCost);
    if (wrong < globalWrong && (best === null || loss < best.loss)) best = { l2, biasL2, loss, globalLoss, wrong, globalWrong, scored };
  }
  return best;
}

function wrongVerdicts(scored: readonly { e: AccountExample; z: number }[], decisionLogit: number, flagCost = 1): number {
  let wrong = 0;
  for (const { e, z } of scored) if (z >= decisionLogit !== (e.label === 1)) wrong += (e.weight ?? 1) * (e.label === 0 ? flagCost : 1);
  return wrong;
}

function meanLoss(scored: readonly { e: AccountExample; z: number }[]): number {
  let sum = 0;
  let weight = 0;
  for (const { e, z } of scored) {
    const w = e.weight ?? 1;
    // log(1 + exp(-z)) for spam, log(1 + exp(z)) for legitimate, computed without overflow.
    const m = e.label === 1 ? -z : z;
    sum += w * (m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m)));
    weight += w;
  }
  return weight === 0 ? 0 : sum / weight;
}

/** The correction without its weights under `minWeight` in size: what is exported and served. */
export function pruned(c: AccountCorrection, minWeight: number): AccountCorrection {
  const kept = [...c.weights.keys()].filter((i) => Math.abs(c.weights[i] as number) >= minWeight);
  return {
    ...c,
    indices: Int32Array.from(kept, (i) => c.indices[i] as number),
    weights: Float32Array.from(kept, (i) => c.weights[i] as number),
  };
}
