import type { FormFields } from '../features/form-fields.ts';

/** One feature group's share in a decision, already phrased for people. */
export interface Signal {
  /** Stable id of the signal group, e.g. "links-in-message", "wording". */
  readonly id: string;
  /** Human phrase, e.g. "3 links in the message" or "wording such as 'backlinks', 'rank'". */
  readonly text: string;
  /** Contribution to the spam logit: > 0 pushes towards spam, < 0 towards legitimate. */
  readonly contribution: number;
}

export type Status = 'spam' | 'legitimate';

/** Who a submission names as its sender and where it links, as the feature extractor read them: what account lists compare. */
export interface Contacts {
  /** The first e-mail field's address, lower-cased; null without one. */
  readonly sender: string | null;
  /** Distinct hosts linked to (lower-cased, without "www."), the first 32. */
  readonly linkHosts: readonly string[];
}

export interface Verdict {
  readonly status: Status;
  /** Calibrated probability that the submission is spam. */
  readonly spamProbability: number;
  /** Calibrated probability that `status` is right. */
  readonly confidence: number;
  /** Strongest signals behind this verdict, strongest first. */
  readonly signals: readonly Signal[];
  /** One sentence naming the strongest signals, for the caller. */
  readonly reasoning: string;
  readonly modelVersion: string;
  /** The sender and link hosts the extractor read (a model that extracts none leaves this out). */
  readonly contacts?: Contacts;
}

/** A verdict without its signals and sentence: what comparing a shadow model needs, for less work. */
export type Score = Pick<Verdict, 'status' | 'spamProbability' | 'confidence' | 'modelVersion'>;

export interface Classifier {
  readonly modelVersion: string;
  readonly featureVersion: string;
  /**
   * `accountId`: the account the submission was sent to; its own correction (if the model has one for it) is added to
   * the global model's score for this call only. Without it, or for an account without one, the global model decides.
   */
  classify(fields: FormFields, accountId?: string): Verdict;
  /** The same decision as `classify`, without the reasoning. */
  score(fields: FormFields, accountId?: string): Score;
}
