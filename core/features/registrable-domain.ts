// Second-level labels under a country code that are part of the suffix: co.uk, com.br, ac.jp, gov.pl, gouv.fr.
const COUNTRY_SECOND_LEVELS = new Set([
  'co',
  'com',
  'ac',
  'gov',
  'org',
  'net',
  'edu',
  'gob',
  'gouv',
  'ne',
  'or',
  'go',
  'lg',
  'gv',
  'govt',
  'mil',
  'ltd',
  'plc',
  'sch',
  'nic',
  'bel',
]);

/**
 * The domain a host belongs to, as its owner registered it: "shop.acme.co.uk" -> "acme.co.uk", "gist.github.com" ->
 * "github.com". A short table of country suffixes, not the public-suffix list: enough to compare a link with an
 * address, which is all it is for.
 */
export function registrableDomain(host: string): string {
  const last = host.lastIndexOf('.');
  if (last <= 0) return host;
  const prev = host.lastIndexOf('.', last - 1);
  if (prev < 0) return host;
  const top = host.length - last - 1;
  const keepThree = top === 2 && COUNTRY_SECOND_LEVELS.has(host.slice(prev + 1, last));
  if (!keepThree) return host.slice(prev + 1);
  const before = host.lastIndexOf('.', prev - 1);
  return host.slice(before + 1);
}

/** The label the owner chose: "acme" of "acme.co.uk". */
export function ownerLabel(host: string): string {
  const domain = registrableDomain(host);
  const dot = domain.indexOf('.');
  return dot < 0 ? domain : domain.slice(0, dot);
}
