import { describeStructure, surfaceSpan, surfaceText, type Features, type Span } from '../features/index.ts';
import { G_EMAIL, G_LINKS, G_ROLE, G_STRUCTURE, G_WORDING, ROLE_GROUPS, TOP_SLOTS, type Attribution } from './attribution.ts';
import type { Signal, Status } from './types.ts';

const MAX_SIGNALS = 3;
const WORDS_PER_SIGNAL = 3;

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
  add(f: Features, slot: number, g: number, v: number): void {
    const span = this.span;
    surfaceSpan(f, slot, span);
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

  has(g: number): boolean {
    for (let j = 0; j < this.count; j++) if (this.group[j] === g) return true;
    return false;
  }

  private readonly span: Span = { start: 0, end: 0 };
}

// Scratch shared by every classifier in the process: explain is synchronous and resets it on entry.
const named = new Named();
const chosen = new Int32Array(MAX_SIGNALS);
let candidates = new Int32Array(64);

function alreadyChosen(g: number, picked: number): boolean {
  for (let i = 0; i < picked; i++) if (chosen[i] === g) return true;
  return false;
}

/**
 * The strongest signals behind a verdict, from each feature's actual contribution to this decision
 * (weight x value, in calibrated log-odds). Features are grouped the way a person reads them: wording,
 * a field's content, links, one structural fact; a group counts with its net contribution.
 */
export function explain(f: Features, a: Attribution, status: Status): Signal[] {
  const sign = status === 'spam' ? 1 : -1;
  const netOf = a.net;
  const first = a.first;
  const top = a.strongest(sign);
  // Name only the strongest features: slicing text for every feature would cost more than the model.
  named.count = 0;
  for (let k = 0; k < top.count; k++) {
    const s = top.slots[k] as number;
    named.add(f, s, a.groupOf(f, s), top.values[k] as number);
  }
  // Groups that may be named: pushing towards the verdict, and for all but structure facts, with a named feature.
  if (candidates.length < a.groupCount) candidates = new Int32Array(a.groupCount * 2);
  let eligible = 0;
  for (let g = 0; g < a.groupCount; g++) {
    if (first[g] === -1 || (netOf[g] as number) * sign <= 0) continue;
    if (g < G_STRUCTURE && !named.has(g)) continue;
    candidates[eligible++] = g;
  }
  // The strongest of them; equal contributions keep their order of first occurrence.
  let picked = 0;
  for (; picked < MAX_SIGNALS; picked++) {
    let best = -1;
    for (let i = 0; i < eligible; i++) {
      const g = candidates[i] as number;
      if (alreadyChosen(g, picked)) continue;
      if (best === -1) best = g;
      else {
        const d = Math.abs(netOf[g] as number) - Math.abs(netOf[best] as number);
        if (d > 0 || (d === 0 && (first[g] as number) < (first[best] as number))) best = g;
      }
    }
    if (best === -1) break;
    chosen[picked] = best;
  }
  // Only the signals that make the sentence are phrased.
  const signals: Signal[] = [];
  for (let i = 0; i < picked; i++) {
    const g = chosen[i] as number;
    signals.push({ id: groupId(f, g), text: phrase(g, f, status), contribution: netOf[g] as number });
  }
  return signals;
}

function groupId(f: Features, g: number): string {
  if (g >= G_STRUCTURE) return `s:${f.structure[g - G_STRUCTURE]}`;
  if (g >= G_ROLE) return `field:${ROLE_GROUPS[g - G_ROLE]}`;
  return g === G_LINKS ? 'links' : g === G_EMAIL ? 'email' : 'wording';
}

/**
 * A link's or an address's domain ('.com', 'ac.uk') when the group also names a host that ends with it
 * ('shop.com', 'ucl.ac.uk'): the same link, not a second one.
 */
function coveredDomain(g: number, j: number): boolean {
  const name = named.name[j] as string;
  const suffix = name.charCodeAt(0) === 0x2e ? name : `.${name}`;
  for (let k = 0; k < named.count; k++) {
    if (k !== j && named.group[k] === g && (named.name[k] as string).endsWith(suffix)) return true;
  }
  return false;
}

/** The group's strongest named features, quoted: "'backlinks', 'rank'"; equal values keep their naming order. */
function quoted(g: number): { text: string; count: number } {
  let out = '';
  let taken = 0;
  let last = Infinity;
  let lastJ = -1;
  const domains = g === G_LINKS || g === G_EMAIL;
  for (; taken < WORDS_PER_SIGNAL; taken++) {
    let best = -1;
    for (let j = 0; j < named.count; j++) {
      if (named.group[j] !== g) continue;
      if (domains && coveredDomain(g, j)) continue;
      const v = named.value[j] as number;
      // Entries already taken rank above (last, lastJ) in (value desc, order asc).
      if (v > last || (v === last && j <= lastJ)) continue;
      if (best === -1 || v > (named.value[best] as number)) best = j;
    }
    if (best === -1) break;
    out += `${taken > 0 ? ', ' : ''}'${named.name[best]}'`;
    last = named.value[best] as number;
    lastJ = best;
  }
  return { text: out, count: taken };
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

/** "Likely spam (0.97): 3 links in the message, ..., and a link in the name field." */
export function sentence(status: Status, confidence: number, signals: readonly Signal[]): string {
  // Under 0.5 (a legitimate verdict whose spam probability is above one half but under the threshold), "likely" would be false.
  const head = `${confidence < 0.5 ? 'Borderline' : 'Likely'} ${status} (${confidence.toFixed(2)})`;
  if (signals.length === 0) return `${head}: no single signal stands out; the score stays near the model's base rate.`;
  const parts = signals.map((s) => s.text);
  const last = parts.pop() as string;
  return `${head}: ${parts.length ? `${parts.join(', ')} and ${last}` : last}.`;
}
