/** What produced a feature; decides its normalization group and how reasoning names it. */
export const KIND = {
  word: 1,
  bigram: 2,
  role: 3,
  char: 4,
  symbol: 5,
  structure: 6,
  domain: 7,
  emailDomain: 8,
} as const;
export type Kind = (typeof KIND)[keyof typeof KIND];

/** 0 = binary indicator; other groups are log-scaled counts, L2-normalized per group. Indexed by kind. */
export const GROUP_OF_KIND: Readonly<Uint8Array> = (() => {
  const g = new Uint8Array(16);
  g[KIND.word] = 1;
  g[KIND.bigram] = 1;
  g[KIND.symbol] = 1;
  g[KIND.char] = 2;
  g[KIND.role] = 3;
  return g;
})();
export const GROUP_COUNT = 4;
