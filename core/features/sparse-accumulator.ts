import { GROUP_COUNT, GROUP_OF_KIND } from './kinds.ts';

// finish() keeps one sum per scaled group (1 to 3) in locals.
if (GROUP_COUNT !== 4) throw new Error('SparseAccumulator.finish expects groups 0-3');

/**
 * Sums feature occurrences into a sparse vector: each distinct feature index gets one slot, in the order of its
 * first occurrence, with where that occurrence was (so the reasoning can name it). Reused across extractions:
 * `reset` empties it, `finish` turns counts into the model's values.
 */
export class SparseAccumulator {
  count = 0;
  readonly indices: Int32Array;
  readonly values: Float32Array;
  readonly kinds: Uint8Array;
  readonly fields: Int32Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  private readonly shift: number;
  // Counts per feature live in a small open-addressing table that stays in cache (a dimension-sized scratch array
  // was touched at random and evicted the model's weights): entry p is table[2p] = feature index + 1 and
  // table[2p + 1] = its slot, side by side so a probe checks and reads one array.
  private table = new Int32Array(2 * 4096);
  private tableShift = 32 - 12;
  /** Where each slot's entry is in `table` (2p), so `finish` clears exactly the entries used. */
  private readonly entryOfSlot: Int32Array;

  constructor(hashBits: number) {
    this.shift = 32 - hashBits;
    const d = 1 << hashBits;
    this.entryOfSlot = new Int32Array(d);
    this.indices = new Int32Array(d);
    this.values = new Float32Array(d);
    this.kinds = new Uint8Array(d);
    this.fields = new Int32Array(d);
    this.starts = new Int32Array(d);
    this.ends = new Int32Array(d);
  }

  /** Empties the vector; the table was cleared slot by slot by the last `finish`. */
  reset(): void {
    this.count = 0;
  }

  /** One occurrence of the feature whose 32-bit hash is `h`; a binary feature stays at 1 however often it occurs. */
  add(h: number, kind: number, field: number, start: number, end: number, binary = false): void {
    // `| 0`: both are below 2^31 (shift and tableShift are at least 8 and 1), and int32 values index and store
    // without the conversions an unsigned `>>>` result costs in optimized code.
    const idx = (h >>> this.shift) | 0;
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    let pos = (Math.imul(idx, 0x9e3779b1) >>> this.tableShift) | 0;
    for (;;) {
      const k = table[2 * pos] as number;
      if (k === idx + 1) {
        if (!binary) {
          const slot = table[2 * pos + 1] as number;
          this.values[slot] = (this.values[slot] as number) + 1;
        }
        return;
      }
      if (k === 0) break;
      pos = (pos + 1) & mask;
    }
    const slot = this.count++;
    table[2 * pos] = idx + 1;
    table[2 * pos + 1] = slot;
    this.entryOfSlot[slot] = 2 * pos;
    this.indices[slot] = idx;
    this.values[slot] = 1;
    this.kinds[slot] = kind;
    this.fields[slot] = field;
    this.starts[slot] = start;
    this.ends[slot] = end;
    if (this.count * 4 > table.length) this.growTable();
  }

  // Keeps the load factor under 1/2: a long submission doubles the table once or twice, then it stays.
  private growTable(): void {
    const entries = this.table.length;
    const table = new Int32Array(entries * 2);
    this.table = table;
    this.tableShift--;
    const mask = entries - 1;
    for (let slot = 0; slot < this.count; slot++) {
      const idx = this.indices[slot] as number;
      let pos = (Math.imul(idx, 0x9e3779b1) >>> this.tableShift) | 0;
      while (table[2 * pos] !== 0) pos = (pos + 1) & mask;
      table[2 * pos] = idx + 1;
      table[2 * pos + 1] = slot;
      this.entryOfSlot[slot] = 2 * pos;
    }
  }

  /**
   * Counts become 1 + ln(count), then each group is scaled to unit length so long texts do not dominate (a group
   * whose squared length is under `normFloor` is scaled as if it had that length). Clears the table for the next use.
   */
  finish(normFloor: number): void {
    // Locals, and the three groups' sums in plain numbers: optimized code checks every typed-array access on every
    // feature, so each array read per feature that is saved counts. Same arithmetic, in the same order, as norms[g].
    const count = this.count;
    const table = this.table;
    const entryOfSlot = this.entryOfSlot;
    const kinds = this.kinds;
    const values = this.values;
    const groupOf = GROUP_OF_KIND;
    let sum1 = 0;
    let sum2 = 0;
    let sum3 = 0;
    for (let s = 0; s < count; s++) {
      table[entryOfSlot[s] as number] = 0;
      const g = groupOf[kinds[s] as number] as number;
      if (g === 0) {
        values[s] = 1;
        continue;
      }
      const n = values[s] as number;
      // Most features occur once, and 1 + ln(1) is exactly 1: skip the logarithm for them.
      const v = n === 1 ? 1 : 1 + Math.log(n);
      values[s] = v;
      if (g === 1) sum1 += v * v;
      else if (g === 2) sum2 += v * v;
      else sum3 += v * v;
    }
    const scale1 = sum1 > 0 ? 1 / Math.sqrt(Math.max(sum1, normFloor)) : 0;
    const scale2 = sum2 > 0 ? 1 / Math.sqrt(Math.max(sum2, normFloor)) : 0;
    const scale3 = sum3 > 0 ? 1 / Math.sqrt(Math.max(sum3, normFloor)) : 0;
    for (let s = 0; s < count; s++) {
      const g = groupOf[kinds[s] as number] as number;
      if (g !== 0) values[s] = (values[s] as number) * (g === 1 ? scale1 : g === 2 ? scale2 : scale3);
    }
  }
}
