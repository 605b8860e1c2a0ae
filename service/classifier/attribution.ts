import { KIND, type Features, type FieldRole } from '../features/index.ts';
import type { LinearScorer } from './linear-scorer.ts';

/** How many of the strongest features, per direction, the reasoning looks at. */
export const TOP_SLOTS = 16;

// Group ids: wording, links, email, one per field role, then one per structure fact (index into f.structure).
export const G_WORDING = 0;
export const G_LINKS = 1;
export const G_EMAIL = 2;
export const ROLE_GROUPS: readonly FieldRole[] = ['name', 'email', 'url', 'message', 'honeypot', 'other'];
export const G_ROLE = 3;
export const G_STRUCTURE = G_ROLE + ROLE_GROUPS.length;

const BY_STRUCTURE = -1;
const BY_ROLE = -2;
// Most features are wording; the few others find their group through this table or per feature.
const KIND_GROUP = (() => {
  const t = new Int8Array(16);
  t[KIND.structure] = BY_STRUCTURE;
  t[KIND.role] = BY_ROLE;
  t[KIND.domain] = G_LINKS;
  t[KIND.emailDomain] = G_EMAIL;
  return t;
})();

/** The strongest features pushing one way: slots and their contributions (made positive), strongest first. */
export class TopFeatures {
  readonly slots = new Int32Array(TOP_SLOTS);
  readonly values = new Float64Array(TOP_SLOTS);
  count = 0;

  /** Keeps `v` (> 0) if it is among the strongest; equal values keep their order of arrival. */
  offer(slot: number, v: number): void {
    const vals = this.values;
    if (this.count === TOP_SLOTS && v <= (vals[TOP_SLOTS - 1] as number)) return;
    let i = this.count < TOP_SLOTS ? this.count++ : TOP_SLOTS - 1;
    while (i > 0 && (vals[i - 1] as number) < v) {
      vals[i] = vals[i - 1] as number;
      this.slots[i] = this.slots[i - 1] as number;
      i--;
    }
    vals[i] = v;
    this.slots[i] = slot;
  }
}

/**
 * One submission's logit and where it came from: each group's net contribution (weight x value x scale), the
 * slot where each group first occurs, and the strongest features each way. Reused across calls.
 */
export class Attribution {
  net = new Float64Array(64);
  first = new Int32Array(64);
  groupCount = 0;
  readonly spam = new TopFeatures();
  readonly legitimate = new TopFeatures();
  private roleGroup = new Int32Array(64);

  /** The logit exactly as `scorer.logit` computes it, attributing it on the way in one pass over the weights. */
  run(scorer: LinearScorer, f: Features, scale: number): number {
    this.reset(f);
    const net = this.net;
    const first = this.first;
    const spam = this.spam;
    const legit = this.legitimate;
    const w = scorer.weights;
    const kernel = scorer.kernel;
    const indices = f.indices;
    const values = f.values;
    const kinds = f.kinds;
    let sum = 0;
    let wording = 0;
    let firstWording = -1;
    for (let s = 0; s < f.count; s++) {
      const wi = w[indices[s] as number] as number;
      const vi = values[s] as number;
      sum += wi * vi;
      const c = kernel * wi * vi * scale;
      const g = KIND_GROUP[kinds[s] as number] as number;
      if (g === G_WORDING) {
        wording += c;
        if (firstWording < 0) firstWording = s;
      } else {
        const gi = this.groupOf(f, s, g);
        net[gi] = (net[gi] as number) + c;
        if (first[gi] === -1) first[gi] = s;
      }
      if (c > 0) {
        if (spam.count < TOP_SLOTS || c > (spam.values[TOP_SLOTS - 1] as number)) spam.offer(s, c);
      } else if (c < 0) {
        if (legit.count < TOP_SLOTS || -c > (legit.values[TOP_SLOTS - 1] as number)) legit.offer(s, -c);
      }
    }
    net[G_WORDING] = wording;
    first[G_WORDING] = firstWording;
    return kernel * sum + scorer.bias;
  }

  /** The group feature `slot` counts in: its structure fact, its field's role, links, email, or the wording. */
  groupOf(f: Features, slot: number, byKind = KIND_GROUP[f.kinds[slot] as number] as number): number {
    if (byKind === BY_STRUCTURE) return G_STRUCTURE + (f.starts[slot] as number);
    if (byKind === BY_ROLE) return this.roleGroup[f.fields[slot] as number] as number;
    return byKind;
  }

  private reset(f: Features): void {
    const groups = G_STRUCTURE + f.structure.length;
    if (this.net.length < groups) {
      this.net = new Float64Array(groups * 2);
      this.first = new Int32Array(groups * 2);
    }
    this.net.fill(0, 0, groups);
    this.first.fill(-1, 0, groups);
    this.groupCount = groups;
    if (this.roleGroup.length < f.roles.length) this.roleGroup = new Int32Array(f.roles.length * 2);
    // One group per field for its role tokens, looked up once instead of per feature.
    for (let i = 0; i < f.roles.length; i++) this.roleGroup[i] = G_ROLE + ROLE_GROUPS.indexOf(f.roles[i] as FieldRole);
    this.spam.count = 0;
    this.legitimate.count = 0;
  }
}
