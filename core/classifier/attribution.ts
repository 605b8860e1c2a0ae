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
const BY_TEXT = -3;
// Most features are wording; the few others find their group through this table or per feature.
const KIND_GROUP = (() => {
  const t = new Int8Array(16);
  t[KIND.structure] = BY_STRUCTURE;
  t[KIND.role] = BY_ROLE;
  // Character n-grams of a name or other field belong to that field, not to the message's wording: a sender's
  // name is not "wording typical of genuine messages".
  t[KIND.char] = BY_TEXT;
  t[KIND.domain] = G_LINKS;
  t[KIND.emailDomain] = G_EMAIL;
  return t;
})();

/** The strongest features pushing one way: slots and their contributions (made positive), strongest first. */
export class TopFeatures {
  readonly slots = new Int32Array(TOP_SLOTS);
  readonly values = new Float64Array(TOP_SLOTS);
  count = 0;
}

/**
 * One submission's logit and where it came from: each group's net contribution (weight x value x scale), the
 * slot where each group first occurs, and each feature's contribution for `strongest`. Reused across calls.
 */
export class Attribution {
  net = new Float64Array(64);
  first = new Int32Array(64);
  groupCount = 0;
  private readonly top = new TopFeatures();
  private roleGroup = new Int32Array(64);
  private textGroup = new Int32Array(64);
  private contributions = new Float64Array(4096);
  private weights = new Float32Array(4096);
  private count = 0;

  /** The logit exactly as `scorer.logit` computes it, attributing it on the way in one pass over the weights. */
  run(scorer: LinearScorer, f: Features, scale: number): number {
    this.reset(f);
    // Everything the loop reads lives in locals: property loads per feature cost more than the arithmetic.
    const net = this.net;
    const first = this.first;
    const roleGroup = this.roleGroup;
    const textGroup = this.textGroup;
    const out = this.contributions;
    const w = scorer.table;
    const kernel = scorer.kernel;
    const wScale = scorer.scale;
    const wOffset = scorer.offset;
    const { indices, values, kinds, starts, fields, count } = f;
    // The weight reads go first, in a loop that does nothing else: its cache misses overlap, where in the main
    // loop each one waited behind the arithmetic of the features before it.
    const ws = this.weights;
    for (let s = 0; s < count; s++) ws[s] = (w[indices[s] as number] as number) * wScale + wOffset;
    let sum = 0;
    let wording = 0;
    let firstWording = -1;
    for (let s = 0; s < count; s++) {
      const wi = ws[s] as number;
      const vi = values[s] as number;
      sum += wi * vi;
      const c = kernel * wi * vi * scale;
      out[s] = c;
      let g = KIND_GROUP[kinds[s] as number] as number;
      // Character n-grams, the most numerous features, are wording unless their field is not a message.
      if (g === BY_TEXT) g = textGroup[fields[s] as number] as number;
      if (g === G_WORDING) {
        wording += c;
        if (firstWording < 0) firstWording = s;
      } else {
        if (g < 0) g = g === BY_STRUCTURE ? G_STRUCTURE + (starts[s] as number) : (roleGroup[fields[s] as number] as number);
        net[g] = (net[g] as number) + c;
        if (first[g] === -1) first[g] = s;
      }
    }
    net[G_WORDING] = wording;
    first[G_WORDING] = firstWording;
    this.count = count;
    return kernel * sum + scorer.bias;
  }

  /**
   * The strongest features pushing towards `sign` (1 spam, -1 legitimate) in the last `run`, strongest first;
   * equal contributions keep their order of occurrence. The verdict's side, and the other only when nothing
   * material pushed towards the verdict.
   */
  strongest(sign: number): TopFeatures {
    const top = this.top;
    const slots = top.slots;
    const vals = top.values;
    const out = this.contributions;
    const count = this.count;
    let n = 0;
    // The weakest value the full list still keeps; 0 while it has room.
    let floor = 0;
    for (let s = 0; s < count; s++) {
      const v = (out[s] as number) * sign;
      if (v <= floor) continue;
      let i = n < TOP_SLOTS ? n++ : TOP_SLOTS - 1;
      while (i > 0 && (vals[i - 1] as number) < v) {
        vals[i] = vals[i - 1] as number;
        slots[i] = slots[i - 1] as number;
        i--;
      }
      vals[i] = v;
      slots[i] = s;
      if (n === TOP_SLOTS) floor = vals[TOP_SLOTS - 1] as number;
    }
    top.count = n;
    return top;
  }

  /** The group feature `slot` counts in: its structure fact, its field's role, links, email, or the wording. */
  groupOf(f: Features, slot: number): number {
    const byKind = KIND_GROUP[f.kinds[slot] as number] as number;
    return resolveGroup(byKind, f.starts[slot] as number, f.fields[slot] as number, this.roleGroup, this.textGroup);
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
    if (this.roleGroup.length < f.roles.length) {
      this.roleGroup = new Int32Array(f.roles.length * 2);
      this.textGroup = new Int32Array(f.roles.length * 2);
    }
    // One group per field for its role tokens, looked up once instead of per feature; a message field's
    // character n-grams are wording, any other field's belong to the field.
    for (let i = 0; i < f.roles.length; i++) {
      const role = f.roles[i] as FieldRole;
      this.roleGroup[i] = G_ROLE + ROLE_GROUPS.indexOf(role);
      this.textGroup[i] = role === 'message' ? G_WORDING : (this.roleGroup[i] as number);
    }
    if (this.contributions.length < f.count) {
      this.contributions = new Float64Array(f.count * 2);
      this.weights = new Float32Array(f.count * 2);
    }
  }
}

/**
 * A feature's group from its kind's entry in KIND_GROUP, its start (structure facts) and its field (role tokens,
 * character n-grams).
 */
function resolveGroup(byKind: number, start: number, field: number, roleGroup: Int32Array, textGroup: Int32Array): number {
  if (byKind >= 0) return byKind;
  if (byKind === BY_STRUCTURE) return G_STRUCTURE + start;
  if (byKind === BY_ROLE) return roleGroup[field] as number;
  return textGroup[field] as number;
}
