import { searchText } from '../text/words.ts';

/** What a search line stands for: a queued item (`i`), or the kept fields of a submission that was not queued (`k`). */
export type SearchKind = 'i' | 'k';

/**
 * One submission's line in the account's search hash: `<kind><receivedAt ms>:<fingerprint>|` then its words, each
 * between spaces. The head holds no space, so a query word (searched as ` word `) can only match a word. The
 * fingerprint lets an eviction delete the campaign key that leads to the item (empty for kept fields). `words` are the
 * submission's searchWords.
 */
export function searchLine(kind: SearchKind, receivedAtMs: number, words: readonly string[], fingerprint = ''): string {
  return `${kind}${Math.round(receivedAtMs)}:${fingerprint}|${searchText(words)}`;
}
