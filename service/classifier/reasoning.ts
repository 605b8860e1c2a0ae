import { describeStructure, KIND, surfaceOf, type Features, type FieldRole } from '../features/index.ts';
import type { Signal, Status } from './types.ts';

const TOP_SLOTS = 16;
const MAX_SIGNALS = 3;
const WORDS_PER_SIGNAL = 3;

interface Group {
  net: number;
  items: Map<string, number>;
}

// Group ids: wording, links, email, one per field role, then one per structure fact (index into f.structure).
const G_WORDING = 0;
const G_LINKS = 1;
const G_EMAIL = 2;
const ROLE_GROUPS: readonly FieldRole[] = ['name', 'email', 'url', 'message', 'honeypot', 'other'];
const G_ROLE = 3;
const G_STRUCTURE = G_ROLE + ROLE_GROUPS.length;

// Reused across calls: grouping ~2,000 features per submission must not allocate a key per feature.
let net = new Float64Array(64);
let firstSeen = new Int32Array(64);

/**
 * The strongest signals behind a verdict, from each feature's actual contribution to this decision
 * (weight x value, in calibrated log-odds). Features are grouped the way a person reads them: wording,
 * a field's content, links, one structural fact; a group counts with its net contribution.
 */
export function explain(f: Features, contributions: Float64Array, status: Status): Signal[] {
  const sign = status === 'spam' ? 1 : -1;
  const groupCount = G_STRUCTURE + f.structure.length;
  if (net.length < groupCount) {
    net = new Float64Array(groupCount * 2);
    firstSeen = new Int32Array(groupCount * 2);
  }
  const netOf = net;
  const first = firstSeen;
  netOf.fill(0, 0, groupCount);
  first.fill(-1, 0, groupCount);
  // One group per field for its role tokens, looked up once instead of per feature.
  const roleGroup = f.roles.map((r) => G_ROLE + ROLE_GROUPS.indexOf(r));
  const kinds = f.kinds;
  const starts = f.starts;
  const fields = f.fields;
  const topSlot = new Int32Array(TOP_SLOTS);
  const topVal = new Float64Array(TOP_SLOTS);
  let top = 0;
  for (let s = 0; s < f.count; s++) {
    const c = contributions[s] as number;
    const g = groupOf(kinds[s] as number, starts[s] as number, fields[s] as number, roleGroup);
    netOf[g] = (netOf[g] as number) + c;
    if (first[g] === -1) first[g] = s;
    const directed = c * sign;
    if (directed <= 0) continue;
    if (top === TOP_SLOTS && directed <= (topVal[TOP_SLOTS - 1] as number)) continue;
    let i = top < TOP_SLOTS ? top++ : TOP_SLOTS - 1;
    while (i > 0 && (topVal[i - 1] as number) < directed) {
      topVal[i] = topVal[i - 1] as number;
      topSlot[i] = topSlot[i - 1] as number;
      i--;
    }
    topVal[i] = directed;
    topSlot[i] = s;
  }
  // Name only the strongest features: slicing text for every feature would cost more than the model.
  const items = new Map<number, Map<string, number>>();
  for (let k = 0; k < top; k++) {
    const s = topSlot[k] as number;
    const name = surfaceOf(f, s);
    if (!name) continue;
    const g = groupOf(kinds[s] as number, starts[s] as number, fields[s] as number, roleGroup);
    let m = items.get(g);
    if (m === undefined) items.set(g, (m = new Map()));
    m.set(name, (m.get(name) ?? 0) + (contributions[s] as number) * sign);
  }
  // Candidates in order of first occurrence, so equal contributions keep a stable order.
  const candidates: number[] = [];
  for (let g = 0; g < groupCount; g++) {
    if (first[g] === -1 || (netOf[g] as number) * sign <= 0) continue;
    if (g < G_STRUCTURE && !items.has(g)) continue;
    candidates.push(g);
  }
  // Strongest first; the sort is stable, so equal contributions keep their order of first occurrence.
  candidates.sort((a, b) => (first[a] as number) - (first[b] as number));
  candidates.sort((a, b) => Math.abs(netOf[b] as number) - Math.abs(netOf[a] as number));
  // Only the signals that make the sentence are phrased.
  return candidates.slice(0, MAX_SIGNALS).map((g) => {
    const group: Group = { net: netOf[g] as number, items: items.get(g) ?? new Map() };
    return { id: groupId(f, g), text: phrase(g, group, f, status), contribution: group.net };
  });
}

/** The group a feature counts in: its structure fact, its field's role, links, email, or the wording. */
function groupOf(kind: number, start: number, field: number, roleGroup: readonly number[]): number {
  if (kind === KIND.structure) return G_STRUCTURE + start;
  if (kind === KIND.role) return roleGroup[field] as number;
  if (kind === KIND.domain) return G_LINKS;
  if (kind === KIND.emailDomain) return G_EMAIL;
  return G_WORDING;
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
