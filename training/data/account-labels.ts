import type { LabelledRecord } from './record.ts';
import { normalizedText } from './split.ts';

/**
 * A text labelled by an account enters the global model only when at least this many accounts labelled it alike, no
 * account labelled it otherwise, and no two of those accounts contradict each other on any text. One account's labels
 * alone train only its own correction: a minority policy (a site that allows self-promotion) or a hostile tenant
 * cannot move the model every other account is judged by. The last condition matters too: two accounts that disagree
 * on a site's self-promotion but agree on its genuine comments would otherwise hand the global model the genuine half
 * of the site alone, which reads that site's wording as legitimate for everyone. Accounts are created by the
 * operator (the tenants file), so a tenant cannot make up a second account to agree with itself. Measured in
 * docs/model.md ("Per-account corrections").
 */
export const GLOBAL_MIN_ACCOUNTS = 2;

export interface AccountLabelPolicy {
  /** What the global model trains on: every record without an account, and the account labels let through. */
  readonly global: LabelledRecord[];
  /** Each account's own labels (the newest per submission, withdrawals applied), for its correction. */
  readonly byAccount: ReadonlyMap<string, readonly LabelledRecord[]>;
  /** Account labels whose text enough accounts agreed on: they are in `global` (one record per text). */
  readonly agreed: number;
  /** Account labels kept out of the global model: one account's alone, disputed, or agreed only by accounts that contradict each other. */
  readonly heldBack: number;
  /** Of those, the labels whose text accounts labelled both ways. */
  readonly disputed: number;
}

/**
 * Splits the loaded records (already the newest label per submission) into what the global model may learn from and
 * what each account's correction learns from. Records without an account (public data, hand-written forms, label
 * lines exported before labels named their account) all go to the global model, as before.
 */
export function applyAccountLabelPolicy(records: readonly LabelledRecord[], minAccounts = GLOBAL_MIN_ACCOUNTS): AccountLabelPolicy {
  const global: LabelledRecord[] = [];
  const byAccount = new Map<string, LabelledRecord[]>();
  const byText = new Map<string, LabelledRecord[]>();
  for (const r of records) {
    if (r.accountId === undefined) {
      global.push(r);
      continue;
    }
    const own = byAccount.get(r.accountId);
    if (own) own.push(r);
    else byAccount.set(r.accountId, [r]);
    const key = normalizedText(r.fields);
    const same = byText.get(key);
    if (same) same.push(r);
    else byText.set(key, [r]);
  }
  // Each account's newest word on each text: one account labelling a text many times is still one account.
  const words = [...byText.values()].map((labels) => {
    const perAccount = new Map<string, LabelledRecord>();
    for (const r of labels) {
      const kept = perAccount.get(r.accountId as string);
      if (!kept || newer(r, kept)) perAccount.set(r.accountId as string, r);
    }
    return { labels, perAccount, disputed: new Set([...perAccount.values()].map((r) => r.label)).size > 1 };
  });
  // Pairs of accounts that contradicted each other somewhere: they never vouch for each other's labels.
  const contradict = new Set<string>();
  for (const w of words) {
    if (!w.disputed) continue;
    const ids = [...w.perAccount.keys()];
    for (const a of ids) for (const b of ids) if (a < b && w.perAccount.get(a)?.label !== w.perAccount.get(b)?.label) contradict.add(`${a}\u0000${b}`);
  }
  const vouch = (a: string, b: string) => !contradict.has(a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  let agreed = 0;
  let heldBack = 0;
  let disputed = 0;
  for (const w of words) {
    if (w.disputed) {
      disputed += w.labels.length;
      heldBack += w.labels.length;
      continue;
    }
    // Accounts (in id order) that vouch for every account already taken.
    const taken: string[] = [];
    for (const id of [...w.perAccount.keys()].sort()) if (taken.every((t) => vouch(t, id))) taken.push(id);
    if (taken.length >= minAccounts) {
      agreed += w.labels.length;
      // The global model gets the text once (the splitter would keep one copy anyway): the newest label.
      global.push([...w.perAccount.values()].reduce((a, b) => (newer(b, a) ? b : a)));
    } else {
      heldBack += w.labels.length;
    }
  }
  return { global, byAccount, agreed, heldBack, disputed };
}

function newer(a: LabelledRecord, b: LabelledRecord): boolean {
  return Date.parse(a.labelledAt ?? '') > Date.parse(b.labelledAt ?? '');
}
