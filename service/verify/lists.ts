import type { Contacts, Verdict } from '../../core/classifier/types.ts';
import type { EntryKind, ListName } from '../review/lists/entry.ts';

/** An entry of an account's list that a submission matched. */
export interface ListHit {
  readonly list: ListName;
  readonly kind: EntryKind;
  /** The entry: an address, or the domain listed. */
  readonly value: string;
  /** What of the submission matched it: the address, its domain, or the host linked to. */
  readonly matched: string;
}

/** The accounts' allow and block lists as the verify route reads them (in memory; review/lists/cache.ts). */
export interface ListLookup {
  match(accountId: string, contacts: Contacts): ListHit | undefined;
}

/** A list decision's confidence: the account's own rule decided, not an estimate. */
export const LIST_CONFIDENCE = 1;

/** Two decimals, and never "1.00" or "0.00" for what is not certain. */
function score(v: Verdict): string {
  const p = v.spamProbability;
  return p >= 0.995 ? '> 0.99' : p < 0.005 ? '< 0.01' : p.toFixed(2);
}

/** Why the list decided, in the caller's words: what matched, on which list. */
export function listReason(hit: ListHit): string {
  const list = `your ${hit.list} list`;
  switch (hit.kind) {
    case 'sender':
      return `the sender is on ${list}`;
    case 'email-domain':
      return hit.matched === hit.value
        ? `the sender's e-mail domain ${hit.value} is on ${list}`
        : `the sender's e-mail domain ${hit.matched} is under ${hit.value}, which is on ${list}`;
    case 'link-domain':
      return hit.matched === hit.value
        ? `links to ${hit.value}, which is on ${list}`
        : `links to ${hit.matched}, under ${hit.value}, which is on ${list}`;
  }
}

/**
 * The verify step for the account's lists, after the model: a block-list hit answers spam and an allow-list hit
 * legitimate, with confidence 1 and a reasoning that says which entry decided and what the model alone said.
 * Undefined when no list matched (or the model extracted no contacts): the model's verdict stands.
 */
export function checkLists(
  lists: ListLookup | undefined,
  accountId: string,
  model: Verdict,
): { verdict: Verdict; hit: ListHit } | undefined {
  if (lists === undefined || model.contacts === undefined) return undefined;
  const hit = lists.match(accountId, model.contacts);
  if (hit === undefined) return undefined;
  const status = hit.list === 'block' ? 'spam' : 'legitimate';
  const why = listReason(hit);
  const reasoning =
    `${status === 'spam' ? 'Spam' : 'Legitimate'}: ${why} ` + `(the model alone said ${model.status}, spam score ${score(model)}).`;
  return {
    hit,
    verdict: {
      status,
      spamProbability: status === 'spam' ? 1 : 0,
      confidence: LIST_CONFIDENCE,
      signals: [{ id: `${hit.list}-list`, text: why, contribution: status === 'spam' ? Infinity : -Infinity }],
      reasoning,
      modelVersion: model.modelVersion,
      contacts: model.contacts,
    },
  };
}
