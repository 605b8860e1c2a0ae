/**
 * How many characters of each field to read when together they exceed the budget: every field gets an equal share,
 * and what a shorter field does not use goes to the longer ones (water-filling). Read in field order instead, one
 * long harmless field placed first would use the whole budget and hide the message after it. Null: everything fits.
 */
export function fairShares(lengths: readonly number[], budget: number): number[] | null {
  let total = 0;
  for (const n of lengths) total += n;
  if (total <= budget) return null;
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const shares = new Array<number>(lengths.length).fill(0);
  let left = budget;
  order.forEach((i, k) => {
    const give = Math.min(lengths[i] as number, Math.floor(left / (order.length - k)));
    shares[i] = give;
    left -= give;
  });
  return shares;
}
