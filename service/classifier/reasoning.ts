import { describeStructure, surfaceOf, type Features } from '../features/index.ts';
import { G_EMAIL, G_LINKS, G_ROLE, G_STRUCTURE, G_WORDING, ROLE_GROUPS, type Attribution } from './attribution.ts';
import type { Signal, Status } from './types.ts';

const MAX_SIGNALS = 3;
const WORDS_PER_SIGNAL = 3;

/** The features the reasoning names: group, surface text and summed contribution, in order of first naming. */
interface Named {
  readonly group: number[];
  readonly name: string[];
  readonly value: number[];
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
  const named: Named = { group: [], name: [], value: [] };
  for (let k = 0; k < top.count; k++) {
    const s = top.slots[k] as number;
    const name = surfaceOf(f, s);
    if (!name) continue;
    const g = a.groupOf(f, s);
    const v = top.values[k] as number;
    let j = 0;
    while (j < named.group.length && !(named.group[j] === g && named.name[j] === name)) j++;
    if (j === named.group.length) {
      named.group.push(g);
      named.name.push(name);
      named.value.push(v);
    } else named.value[j] = (named.value[j] as number) + v;
  }
  // Candidates in order of first occurrence, so equal contributions keep a stable order.
  const candidates: number[] = [];
  for (let g = 0; g < a.groupCount; g++) {
    if (first[g] === -1 || (netOf[g] as number) * sign <= 0) continue;
    if (g < G_STRUCTURE && !named.group.includes(g)) continue;
    candidates.push(g);
  }
  // Strongest first; equal contributions keep their order of first occurrence.
  candidates.sort((x, y) => Math.abs(netOf[y] as number) - Math.abs(netOf[x] as number) || (first[x] as number) - (first[y] as number));
  // Only the signals that make the sentence are phrased.
  return candidates.slice(0, MAX_SIGNALS).map((g) => ({ id: groupId(f, g), text: phrase(g, named, f, status), contribution: netOf[g] as number }));
}

function groupId(f: Features, g: number): string {
  if (g >= G_STRUCTURE) return `s:${f.structure[g - G_STRUCTURE]}`;
  if (g >= G_ROLE) return `field:${ROLE_GROUPS[g - G_ROLE]}`;
  return g === G_LINKS ? 'links' : g === G_EMAIL ? 'email' : 'wording';
}

/** The group's strongest named features, quoted: "'backlinks', 'rank'". */
function quoted(named: Named, g: number): string {
  const picked: number[] = [];
  for (let j = 0; j < named.group.length; j++) if (named.group[j] === g) picked.push(j);
  // Stable: equal contributions keep their order of first naming.
  picked.sort((x, y) => (named.value[y] as number) - (named.value[x] as number));
  return picked
    .slice(0, WORDS_PER_SIGNAL)
    .map((j) => `'${named.name[j]}'`)
    .join(', ');
}

function phrase(g: number, named: Named, f: Features, status: Status): string {
  if (g >= G_STRUCTURE) return describeStructure(f.structure[g - G_STRUCTURE] as string, f.facts);
  if (g === G_WORDING) return status === 'spam' ? `spam-typical wording (${quoted(named, g)})` : `wording typical of genuine messages (${quoted(named, g)})`;
  if (g === G_LINKS) return status === 'spam' ? `links to ${quoted(named, g)}` : `links to ${quoted(named, g)}, which genuine senders use`;
  if (g === G_EMAIL) return `an email address at ${quoted(named, g)}`;
  const role = ROLE_GROUPS[g - G_ROLE];
  return `${quoted(named, g)} in the ${role === 'other' ? 'other fields' : `${role} field`}`;
}

/** "Likely spam (0.97): 3 links in the message, ..., and a link in the name field." */
export function sentence(status: Status, confidence: number, signals: readonly Signal[]): string {
  const head = `Likely ${status} (${confidence.toFixed(2)})`;
  if (signals.length === 0) return `${head}: no single signal stands out; the score stays near the model's base rate.`;
  const parts = signals.map((s) => s.text);
  const last = parts.pop() as string;
  return `${head}: ${parts.length ? `${parts.join(', ')} and ${last}` : last}.`;
}
