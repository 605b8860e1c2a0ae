import { describeStructure, KIND, surfaceOf, type Features } from '../features/index.ts';
import type { Signal, Status } from './types.ts';

const TOP_SLOTS = 16;
const MAX_SIGNALS = 3;
const WORDS_PER_SIGNAL = 3;

interface Group {
  net: number;
  items: Map<string, number>;
}

/**
 * The strongest signals behind a verdict, from each feature's actual contribution to this decision
 * (weight x value, in calibrated log-odds). Features are grouped the way a person reads them: wording,
 * a field's content, links, one structural fact; a group counts with its net contribution.
 */
export function explain(f: Features, contributions: Float64Array, status: Status): Signal[] {
  const sign = status === 'spam' ? 1 : -1;
  const groups = new Map<string, Group>();
  const topSlot: number[] = [];
  const topVal: number[] = [];
  for (let s = 0; s < f.count; s++) {
    const c = contributions[s] as number;
    const key = groupKey(f, s);
    const g = groups.get(key);
    if (g) g.net += c;
    else groups.set(key, { net: c, items: new Map() });
    const directed = c * sign;
    if (directed <= 0) continue;
    if (topVal.length === TOP_SLOTS && directed <= (topVal[TOP_SLOTS - 1] as number)) continue;
    let i = topVal.length < TOP_SLOTS ? topVal.length : TOP_SLOTS - 1;
    if (topVal.length < TOP_SLOTS) {
      topVal.push(0);
      topSlot.push(0);
    }
    while (i > 0 && (topVal[i - 1] as number) < directed) {
      topVal[i] = topVal[i - 1] as number;
      topSlot[i] = topSlot[i - 1] as number;
      i--;
    }
    topVal[i] = directed;
    topSlot[i] = s;
  }
  // Name only the strongest features: slicing text for every feature would cost more than the model.
  for (const s of topSlot) {
    const g = groups.get(groupKey(f, s)) as Group;
    const name = surfaceOf(f, s);
    if (name) g.items.set(name, (g.items.get(name) ?? 0) + (contributions[s] as number) * sign);
  }
  const signals: Signal[] = [];
  for (const [key, g] of groups) {
    if (g.net * sign <= 0 || (g.items.size === 0 && !key.startsWith('s:'))) continue;
    signals.push({ id: key, text: phrase(key, g, f, status), contribution: g.net });
  }
  signals.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  return signals.slice(0, MAX_SIGNALS);
}

function groupKey(f: Features, s: number): string {
  switch (f.kinds[s]) {
    case KIND.structure: return `s:${f.structure[f.starts[s] as number]}`;
    case KIND.role: return `field:${f.roles[f.fields[s] as number]}`;
    case KIND.domain: return 'links';
    case KIND.emailDomain: return 'email';
    default: return 'wording';
  }
}

function quoted(g: Group): string {
  return [...g.items.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, WORDS_PER_SIGNAL)
    .map(([w]) => `'${w}'`)
    .join(', ');
}

function phrase(key: string, g: Group, f: Features, status: Status): string {
  if (key.startsWith('s:')) return describeStructure(key.slice(2), f.facts);
  if (key === 'wording') return status === 'spam' ? `spam-typical wording (${quoted(g)})` : `wording typical of genuine messages (${quoted(g)})`;
  if (key === 'links') return status === 'spam' ? `links to ${quoted(g)}` : `links to ${quoted(g)}, which genuine senders use`;
  if (key === 'email') return `an email address at ${quoted(g)}`;
  const role = key.slice('field:'.length);
  return `${quoted(g)} in the ${role === 'other' ? 'other fields' : `${role} field`}`;
}

/** "Likely spam (0.97): 3 links in the message, ..., and a link in the name field." */
export function sentence(status: Status, confidence: number, signals: readonly Signal[]): string {
  const head = `Likely ${status} (${confidence.toFixed(2)})`;
  if (signals.length === 0) return `${head}: no single signal stands out; the score stays near the model's base rate.`;
  const parts = signals.map((s) => s.text);
  const last = parts.pop() as string;
  return `${head}: ${parts.length ? `${parts.join(', ')} and ${last}` : last}.`;
}
