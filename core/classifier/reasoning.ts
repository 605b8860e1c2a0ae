import { CHAR_CLASS, classAt, NOSPACE, WORD } from '../features/char-class.ts';
import { describeStructure, isEvidence, surfaceSpan, surfaceText, type Features, type Span } from '../features/index.ts';
import { G_EMAIL, G_LINKS, G_ROLE, G_STRUCTURE, G_WORDING, ROLE_GROUPS, TOP_SLOTS, type Attribution } from './attribution.ts';
import type { Signal, Status } from './types.ts';

/**
 * The least contribution, in calibrated log-odds, that the reasoning names as a reason: about 10 points of
 * probability at the decision threshold. How it was measured: docs/model.md, "How the reasoning is chosen".
 */
export const MATERIAL_LOGIT = 0.5;

const MAX_SIGNALS = 3;
const WORDS_PER_SIGNAL = 3;
const G_NAME = G_ROLE + ROLE_GROUPS.indexOf('name');

/**
 * The features the reasoning names, in order of first naming: group, where the name lies (field and span),
 * the name and the summed contribution. Reused across calls; only `count` entries are live.
 */
class Named {
  readonly group = new Int32Array(TOP_SLOTS);
  readonly field = new Int32Array(TOP_SLOTS);
  readonly start = new Int32Array(TOP_SLOTS);
  readonly end = new Int32Array(TOP_SLOTS);
  readonly value = new Float64Array(TOP_SLOTS);
  readonly name: string[] = [];
  count = 0;

  /** Adds `v` to the entry for (group, name), creating it; the span is checked first, so a repeat costs no slice. */
  add(f: Features, slot: number, span: Span, g: number, v: number): void {
    const field = f.fields[slot] as number;
    const n = this.count;
    for (let j = 0; j < n; j++) {
      if (this.group[j] === g && this.field[j] === field && this.start[j] === span.start && this.end[j] === span.end) {
        this.value[j] = (this.value[j] as number) + v;
        return;
      }
    }
    const name = surfaceText(f, slot, span);
    if (!name) return;
    for (let j = 0; j < n; j++) {
      if (this.group[j] === g && this.name[j] === name) {
        this.value[j] = (this.value[j] as number) + v;
        return;
      }
    }
    this.group[n] = g;
    this.field[n] = field;
    this.start[n] = span.start;
    this.end[n] = span.end;
    this.value[n] = v;
    this.name[n] = name;
    this.count = n + 1;
  }
}

// Scratch shared by every classifier in the process: explain is synchronous and resets it on entry.
const named = new Named();
const span: Span = { start: 0, end: 0 };
const chosen = new Int32Array(MAX_SIGNALS);
let candidates = new Int32Array(64);
/** Each group's contribution towards the side being explained, less what came from the sender's own name. */
let toward = new Float64Array(64);

/**
 * The strongest signals behind a verdict, from each feature's actual contribution to this decision
 * (weight x value, in calibrated log-odds). Features are grouped the way a person reads them: wording,
 * a field's content, links, one structural fact; a group counts with its net contribution, and is named only
 * when that is material (MATERIAL_LOGIT) and it is evidence a person can check (see `eligible`).
 */
export function explain(f: Features, a: Attribution, status: Status): Signal[] {
  const picked = choose(f, a, status === 'spam' ? 1 : -1, MAX_SIGNALS);
  // Only the signals that make the sentence are phrased.
  const signals: Signal[] = [];
  for (let i = 0; i < picked; i++) {
    const g = chosen[i] as number;
    signals.push({ id: groupId(f, g), text: phrase(g, f, status), contribution: contribution(g, status === 'spam' ? 1 : -1) });
  }
  return signals;
}

/**
 * When nothing material pushed towards the verdict: the strongest material signal that pushed the other way
 * (and lost), or null. Asked for only then, so it costs nothing on most verdicts.
 */
export function counterSignal(f: Features, a: Attribution, status: Status): Signal | null {
  if (choose(f, a, status === 'spam' ? -1 : 1, 1) === 0) return null;
  const g = chosen[0] as number;
  return {
    id: groupId(f, g),
    text: phrase(g, f, status === 'spam' ? 'legitimate' : 'spam'),
    contribution: contribution(g, status === 'spam' ? -1 : 1),
  };
}

/** What the named group contributed to the spam logit, less the sender's own name (see `choose`). */
function contribution(g: number, sign: number): number {
  return (toward[g] as number) * sign;
}

/** Fills `chosen` with up to `max` groups pushing towards `sign` (1 spam, -1 legitimate), strongest first. */
function choose(f: Features, a: Attribution, sign: number, max: number): number {
  const netOf = a.net;
  const first = a.first;
  if (toward.length < a.groupCount) toward = new Float64Array(a.groupCount * 2);
  for (let g = 0; g < a.groupCount; g++) toward[g] = (netOf[g] as number) * sign;
  // Name only the strongest features: slicing text for every feature would cost more than the model.
  const top = a.strongest(sign);
  collectNameWords(f);
  named.count = 0;
  for (let k = 0; k < top.count; k++) {
    const s = top.slots[k] as number;
    const g = a.groupOf(f, s);
    const v = top.values[k] as number;
    if (g >= G_STRUCTURE) continue;
    surfaceSpan(f, s, span);
    // The sender's name repeated in the message or another field ("Thanks, Ada") is not wording: it neither
    // counts nor is quoted there. Hosts are hosts ('ada-design.com'), whatever words they hold.
    if ((g === G_WORDING || (g >= G_ROLE && g !== G_NAME)) && namesSender(f, f.fields[s] as number, span)) {
      toward[g] = (toward[g] as number) - v;
      continue;
    }
    named.add(f, s, span, g, v);
  }
  if (candidates.length < a.groupCount) candidates = new Int32Array(a.groupCount * 2);
  let n = 0;
  let linksGroup = false;
  for (let g = 0; g < a.groupCount; g++) {
    if (first[g] === -1 || (toward[g] as number) < MATERIAL_LOGIT || !nameable(f, g, sign)) continue;
    candidates[n++] = g;
    if (g === G_LINKS) linksGroup = true;
  }
  // "A link to 'x.site'" already says there is one link: "and a link (x.site)" would say it twice.
  if (linksGroup) {
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const g = candidates[i] as number;
      if (!(g >= G_STRUCTURE && f.structure[g - G_STRUCTURE] === 'links=1')) candidates[kept++] = g;
    }
    n = kept;
  }
  // The strongest of them; equal contributions keep their order of first occurrence.
  let picked = 0;
  for (; picked < max; picked++) {
    let best = -1;
    for (let i = 0; i < n; i++) {
      const g = candidates[i] as number;
      if (alreadyChosen(g, picked)) continue;
      if (best === -1) best = g;
      else {
        const d = (toward[g] as number) - (toward[best] as number);
        if (d > 0 || (d === 0 && (first[g] as number) < (first[best] as number))) best = g;
      }
    }
    if (best === -1) break;
    chosen[picked] = best;
  }
  return picked;
}

/**
 * Whether group `g` may be named as a reason for `sign`: a structure fact only if it is evidence (not an absence
 * or a property of nearly all text, and no length of a message with no words in it); the words of the name,
 * address and other fields only towards spam, where they are what the sender typed in the wrong place ("SEO" in
 * the name field). Towards legitimate they are a person's name ('haddad', 'rana'), an address's local part or a
 * form's own ids ('qv7nlp'): no evidence that a message is genuine. Any other group is of a kind that may be
 * named; `explain` names it only if it also has a feature to quote. Exported so reports and tests rank by this rule.
 */
export function eligible(f: Features, g: number, sign: number): boolean {
  if (g >= G_STRUCTURE) {
    const id = f.structure[g - G_STRUCTURE] as string;
    return isEvidence(id) && !(id.startsWith('length=') && !messageHasWords(f));
  }
  return !(g >= G_ROLE && sign < 0);
}

/** Whether `explain` can name group `g` for `sign`: eligible, and a structure fact or a group with a feature to quote. */
function nameable(f: Features, g: number, sign: number): boolean {
  if (!eligible(f, g, sign)) return false;
  if (g >= G_STRUCTURE) return true;
  for (let j = 0; j < named.count; j++) if (named.group[j] === g && quotable(g, j)) return true;
  return false;
}

function alreadyChosen(g: number, picked: number): boolean {
  for (let i = 0; i < picked; i++) if (chosen[i] === g) return true;
  return false;
}

/** Whether a message field holds a letter or a digit: "." or "!!!" is no message, whatever its length. */
function messageHasWords(f: Features): boolean {
  for (let i = 0; i < f.roles.length; i++) {
    if (f.roles[i] !== 'message') continue;
    const t = f.texts[i] ?? '';
    for (let k = 0; k < t.length; k++) {
      const c = CHAR_CLASS[t.charCodeAt(k)];
      if (c === WORD || c === NOSPACE) return true;
    }
  }
  return false;
}

// The words of the name fields (maximal runs of word characters): field, start and end of each, rebuilt by each
// `choose` (one pass over the name fields' text; at most one entry per character of it).
let nameWordField = new Int32Array(16);
let nameWordStart = new Int32Array(16);
let nameWordEnd = new Int32Array(16);
let nameWords = 0;

function collectNameWords(f: Features): void {
  nameWords = 0;
  for (let i = 0; i < f.roles.length; i++) {
    if (f.roles[i] !== 'name') continue;
    const name = f.texts[i] ?? '';
    for (let s = 0; s < name.length;) {
      while (s < name.length && CHAR_CLASS[name.charCodeAt(s)] !== WORD) s++;
      let e = s;
      while (e < name.length && CHAR_CLASS[name.charCodeAt(e)] === WORD) e++;
      if (e > s) {
        if (nameWords === nameWordField.length) {
          const grow = (a: Int32Array) => {
            const b = new Int32Array(a.length * 2);
            b.set(a);
            return b;
          };
          nameWordField = grow(nameWordField);
          nameWordStart = grow(nameWordStart);
          nameWordEnd = grow(nameWordEnd);
        }
        nameWordField[nameWords] = i;
        nameWordStart[nameWords] = s;
        nameWordEnd[nameWords] = e;
        nameWords++;
      }
      s = e;
    }
  }
}

/** Whether a word of `field`'s text in `sp` is a word of a name field (texts are lower-cased already). */
function namesSender(f: Features, field: number, sp: Span): boolean {
  if (nameWords === 0) return false;
  const text = f.texts[field] ?? '';
  for (let s = sp.start; s < sp.end;) {
    while (s < sp.end && classAt(text, s) !== WORD) s++;
    let e = s;
    while (e < sp.end && classAt(text, e) === WORD) e++;
    if (e > s && isNameWord(f, field, text, s, e)) return true;
    s = e;
  }
  return false;
}

/**
 * Whether text[s, e) (a run of word characters) is a whole word of a name field other than `field`: compared only
 * with the name words of its length, instead of at every position of every name field's text.
 */
function isNameWord(f: Features, field: number, text: string, s: number, e: number): boolean {
  const len = e - s;
  for (let j = 0; j < nameWords; j++) {
    const at = nameWordStart[j] as number;
    if (nameWordField[j] === field || (nameWordEnd[j] as number) - at !== len) continue;
    const name = f.texts[nameWordField[j] as number] ?? '';
    let k = 0;
    while (k < len && name.charCodeAt(at + k) === text.charCodeAt(s + k)) k++;
    if (k === len) return true;
  }
  return false;
}

/** The id a signal of group `g` carries in a verdict: `s:<fact>`, `field:<role>`, 'links', 'email' or 'wording'. */
export function groupId(f: Features, g: number): string {
  if (g >= G_STRUCTURE) return `s:${f.structure[g - G_STRUCTURE]}`;
  if (g >= G_ROLE) return `field:${ROLE_GROUPS[g - G_ROLE]}`;
  return g === G_LINKS ? 'links' : g === G_EMAIL ? 'email' : 'wording';
}

/**
 * Whether named entry `j` of group `g` is worth quoting. A link's or an address's domain ('.com', 'ac.uk') is
 * not when the group also names a host that ends with it ('shop.com', 'ucl.ac.uk'): the same link, not a second
 * one; nor when it is material in its own right: "an address at '.com'" says nothing.
 */
function quotable(g: number, j: number): boolean {
  if (g !== G_LINKS && g !== G_EMAIL) return true;
  const name = named.name[j] as string;
  if (name.charCodeAt(0) === 0x2e && (named.value[j] as number) < MATERIAL_LOGIT) return false;
  for (let k = 0; k < named.count; k++) {
    if (k !== j && named.group[k] === g && isSubdomain(named.name[k] as string, name)) return false;
  }
  return true;
}

/** Whether host `long` ends with domain `short` ('.com' or 'ac.uk') at a dot: 'shop.com' and '.com'. */
function isSubdomain(long: string, short: string): boolean {
  const at = long.length - short.length;
  if (at <= 0 || !long.endsWith(short)) return false;
  return short.charCodeAt(0) === 0x2e || long.charCodeAt(at - 1) === 0x2e;
}

/**
 * The group's strongest named features, quoted: "'backlinks', 'rank'"; a bare domain ending reads "a '.top'
 * domain". Equal values keep their naming order.
 */
function quoted(g: number): { text: string; count: number } {
  let out = '';
  let taken = 0;
  let last = Infinity;
  let lastJ = -1;
  while (taken < WORDS_PER_SIGNAL) {
    let best = -1;
    for (let j = 0; j < named.count; j++) {
      if (named.group[j] !== g || !quotable(g, j)) continue;
      const v = named.value[j] as number;
      // Entries already considered rank above (last, lastJ) in (value desc, order asc).
      if (v > last || (v === last && j <= lastJ)) continue;
      if (best === -1 || v > (named.value[best] as number)) best = j;
    }
    if (best === -1) break;
    last = named.value[best] as number;
    lastJ = best;
    // 'forex pro', then 'forex' and 'pro' from the same place would quote the same words three times.
    if (overlapsTaken(best, taken)) continue;
    quotedAt[taken] = best;
    const name = named.name[best] as string;
    const tld = name.charCodeAt(0) === 0x2e && (g === G_LINKS || g === G_EMAIL);
    out += `${taken > 0 ? ', ' : ''}${tld ? `a '${name}' domain` : `'${name}'`}`;
    taken++;
  }
  return { text: out, count: taken };
}

const quotedAt = new Int32Array(WORDS_PER_SIGNAL);

/** Whether named entry `j` lies (first occurs) in the same field text as one of the `taken` already quoted. */
function overlapsTaken(j: number, taken: number): boolean {
  for (let i = 0; i < taken; i++) {
    const k = quotedAt[i] as number;
    if (
      named.field[k] === named.field[j] &&
      (named.start[j] as number) < (named.end[k] as number) &&
      (named.start[k] as number) < (named.end[j] as number)
    )
      return true;
  }
  return false;
}

function phrase(g: number, f: Features, status: Status): string {
  if (g >= G_STRUCTURE) return describeStructure(f.structure[g - G_STRUCTURE] as string, f.facts);
  const q = quoted(g);
  if (g === G_WORDING) return status === 'spam' ? `spam-typical wording (${q.text})` : `wording typical of genuine messages (${q.text})`;
  if (g === G_LINKS) {
    const links = q.count === 1 && f.facts.links <= 1 ? `a link to ${q.text}` : `links to ${q.text}`;
    return status === 'spam' ? links : `${links}, which genuine senders use`;
  }
  if (g === G_EMAIL) return q.count === 1 ? `an email address at ${q.text}` : `email addresses at ${q.text}`;
  const role = ROLE_GROUPS[g - G_ROLE];
  return `${q.text} in the ${role === 'other' ? 'other fields' : `${role} field`}`;
}

/**
 * "Likely spam (0.97): 3 links in the message, ..., and a link in the name field." With no material signal
 * behind the verdict, it says so, and names the strongest one that pushed the other way and lost, if any.
 */
export function sentence(status: Status, confidence: number, signals: readonly Signal[], against: Signal | null = null): string {
  // Under 0.5 (a legitimate verdict whose spam probability is above one half but under the threshold), "likely" would be false.
  const head = `${confidence < 0.5 ? 'Borderline' : 'Likely'} ${status} (${confidence.toFixed(2)})`;
  if (signals.length === 0) {
    if (!against) return `${head}: no strong signal either way.`;
    const lost = status === 'spam' ? 'a genuine message, but not strongly enough to clear it' : 'spam, but not strongly enough to flag it';
    return `${head}: no strong signal of ${status === 'spam' ? 'spam' : 'a genuine message'}; ${against.text} pointed to ${lost}.`;
  }
  const parts = signals.map((s) => s.text);
  const last = parts.pop() as string;
  return `${head}: ${parts.length ? `${parts.join(', ')} and ${last}` : last}.`;
}

/** The signal that names an account's own correction (its moderators' labels) among a verdict's reasons. */
export const ACCOUNT_SIGNAL_ID = 'account-labels';
/**
 * Calibrated log-odds below which an account's correction that did not change the verdict goes unnamed: it nudged
 * the score, the model's own signals decided.
 */
export const ACCOUNT_SIGNAL_MIN = 0.5;

/**
 * The signals with the account's correction among them when it drove the verdict: first when it changed the verdict
 * the global model alone would have given (`decided`), else ranked by its size among the others if it pushed the
 * verdict's way by at least ACCOUNT_SIGNAL_MIN. A correction made mostly of its bias (the account's threshold shift
 * counts as bias: it moves every submission alike) is the moderators' labels in general, not labels on messages like
 * this one; `thresholdDecided` (the verdict is legitimate only because the account's threshold is above the model's)
 * names the threshold itself.
 */
export function withAccountSignal(
  signals: readonly Signal[],
  status: Status,
  adjustment: number,
  bias: number,
  decided: boolean,
  thresholdDecided = false,
): Signal[] {
  const sign = status === 'spam' ? 1 : -1;
  if (adjustment * sign <= 0 || (!decided && Math.abs(adjustment) < ACCOUNT_SIGNAL_MIN)) return [...signals];
  const text = thresholdDecided
    ? ACCOUNT_THRESHOLD_TEXT
    : Math.abs(adjustment - bias) >= Math.abs(bias)
      ? "your moderators' labels on similar messages"
      : "your moderators' earlier labels";
  const account: Signal = { id: ACCOUNT_SIGNAL_ID, text, contribution: adjustment };
  if (decided) return [account, ...signals].slice(0, MAX_SIGNALS);
  const at = signals.findIndex((s) => Math.abs(s.contribution) < Math.abs(adjustment));
  if (at === -1) return signals.length < MAX_SIGNALS ? [...signals, account] : [...signals];
  return [...signals.slice(0, at), account, ...signals.slice(at)].slice(0, MAX_SIGNALS);
}

/** Why a message is legitimate only under the account's own threshold (set from its labels, above the model's). */
export const ACCOUNT_THRESHOLD_TEXT = "your account's higher bar for flagging, set from its moderators' labels";
