/**
 * Which label lines a withdrawal takes back: the one definition, read by the export (is an undone label's line in the
 * files, does a withdrawal there already take it back) and by the training loader (which lines not to train on), so
 * the two cannot drift apart. The rule:
 * - a withdrawal with a labelId takes back the line with that labelId, and a line without one (exported before labels
 *   had ids) of the same submission and instant; never another label of the same millisecond;
 * - a withdrawal without a labelId (written before labels had ids) takes back every line of its submission whose
 *   labelledAt is the same instant as its `withdrawn`.
 * Instants are compared by Date.parse, so a hand-made `10:00+01:00` names the same label as `09:00Z`.
 * `submissionId` is any key both sides share: the loader's records carry `label:<submissionId>`.
 */

/** A label line, as far as withdrawals go. */
export interface LabelLineRef {
  readonly submissionId: string;
  readonly labelledAt: string;
  readonly labelId?: string | undefined;
}

/** A withdrawal line (or an undo the export may have to write one for): `withdrawn` is the undone label's labelledAt. */
export interface WithdrawalRef {
  readonly submissionId: string;
  readonly withdrawn: string;
  readonly labelId?: string | undefined;
}

function instant(submissionId: string, at: string): string {
  return `${submissionId}|${Date.parse(at)}`;
}

// A line and a withdrawal match when they share a name; these two functions are the rule above.
function lineNames(line: LabelLineRef): string[] {
  const at = instant(line.submissionId, line.labelledAt);
  return line.labelId === undefined ? [`at:${at}`, `unnamed:${at}`] : [`at:${at}`, `id:${line.submissionId}|${line.labelId}`];
}

function withdrawnNames(w: WithdrawalRef): string[] {
  const at = instant(w.submissionId, w.withdrawn);
  return w.labelId === undefined ? [`at:${at}`] : [`id:${w.submissionId}|${w.labelId}`, `unnamed:${at}`];
}

/** Withdrawals, asked whether they take back a label line. */
export class WithdrawalSet {
  readonly #names = new Set<string>();

  add(withdrawal: WithdrawalRef): void {
    for (const name of withdrawnNames(withdrawal)) this.#names.add(name);
  }

  takesBack(line: LabelLineRef): boolean {
    return lineNames(line).some((name) => this.#names.has(name));
  }
}

/** Label lines, asked whether a withdrawal takes back any of them. */
export class LabelLineSet {
  readonly #names = new Set<string>();

  add(line: LabelLineRef): void {
    for (const name of lineNames(line)) this.#names.add(name);
  }

  anyTakenBackBy(withdrawal: WithdrawalRef): boolean {
    return withdrawnNames(withdrawal).some((name) => this.#names.has(name));
  }
}
