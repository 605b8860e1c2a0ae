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

/** 0 = binary indicator; other groups are log-scaled counts, L2-normalized per group. */
export const GROUP_OF_KIND: Readonly<Record<number, number>> = {
  [KIND.word]: 1,
  [KIND.bigram]: 1,
  [KIND.symbol]: 1,
  [KIND.char]: 2,
  [KIND.role]: 3,
  [KIND.structure]: 0,
  [KIND.domain]: 0,
  [KIND.emailDomain]: 0,
};
export const GROUP_COUNT = 4;
