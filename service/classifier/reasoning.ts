import { describeStructure, surfaceOf, type Features } from '../features/index.ts';
import { G_EMAIL, G_LINKS, G_ROLE, G_STRUCTURE, G_WORDING, ROLE_GROUPS, type Attribution } from './attribution.ts';
import type { Signal, Status } from './types.ts';

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
export function explain(f: Features, a: Attribution, status: Status): Signal[] {
  const sign = status === 'spam' ? 1 : -1;
  const netOf = a.net;
  const first = a.first;
  const top = a.strongest(sign);
  // Name only the strongest features: slicing text for every feature would cost more than the model.
  const items = new Map<number, Map<string, number>>();
  for (let k = 0; k < top.count; k++) {
    const s = top.slots[k] as number;
    const name = surfaceOf(f, s);
    if (!name) continue;
    const g = a.groupOf(f, s);
    let m = items.get(g);
    if (m === undefined) items.set(g, (m = new Map()));
    m.set(name, (m.get(name) ?? 0) + (top.values[k] as number));
  }
  // Candidates in order of first occurrence, so equal contributions keep a stable order.
  const candidates: number[] = [];
  for (let g = 0; g < a.groupCount; g++) {
    if (first[g] === -1 || (netOf[g] as number) * sign <= 0) continue;
    if (g < G_STRUCTURE && !items.has(g)) continue;
    candidates.push(g);
  }
  // Strongest first; the sort is stable, so equal contributions keep their order of first occurrence.
  candidates.sort((x, y) => (first[x] as number) - (first[y] as number));
  candidates.sort((x, y) => Math.abs(netOf[y] as number) - Math.abs(netOf[x] as number));
  // Only the signals that make the sentence are phrased.
  return candidates.slice(0, MAX_SIGNALS).map((g) => {
    const group: Group = { net: netOf[g] as number, items: items.get(g) ?? new Map() };
    return { id: groupId(f, g), text: phrase(g, group, f, status), contribution: group.net };
  });
}

function groupId(f: Features, g: number): string {
  if (g >= G_STRUCTURE) return `s:${f.structure[g - G_STRUCTURE]}`;
  if (g >= G_ROLE) return `field:${ROLE_GROUPS[g - G_ROLE]}`;
  return g === G_LINKS ? 'links' : g === G_EMAIL ? 'email' : 'wording';
}

function quoted(g: Group): string {
  return [...g.items.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, WORDS_PER_SIGNAL)
    .map(([w]) => `'${w}'`)
    .join(', ');
}

function phrase(g: number, group: Group, f: Features, status: Status): string {
  if (g >= G_STRUCTURE) return describeStructure(f.structure[g - G_STRUCTURE] as string, f.facts);
  if (g === G_WORDING) return status === 'spam' ? `spam-typical wording (${quoted(group)})` : `wording typical of genuine messages (${quoted(group)})`;
  if (g === G_LINKS) return status === 'spam' ? `links to ${quoted(group)}` : `links to ${quoted(group)}, which genuine senders use`;
  if (g === G_EMAIL) return `an email address at ${quoted(group)}`;
  const role = ROLE_GROUPS[g - G_ROLE];
  return `${quoted(group)} in the ${role === 'other' ? 'other fields' : `${role} field`}`;
}

/** "Likely spam (0.97): 3 links in the message, ..., and a link in the name field." */
export function sentence(status: Status, confidence: number, signals: readonly Signal[]): string {
  const head = `Likely ${status} (${confidence.toFixed(2)})`;
  if (signals.length === 0) return `${head}: no single signal stands out; the score stays near the model's base rate.`;
  const parts = signals.map((s) => s.text);
  const last = parts.pop() as string;
  return `${head}: ${parts.length ? `${parts.join(', ')} and ${last}` : last}.`;
}
