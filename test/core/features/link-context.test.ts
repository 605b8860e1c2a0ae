import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FEATURE_SETTINGS,
  FeatureExtractor,
  KIND,
  describeStructure,
  featureVersion,
  surfaceOf,
} from '../../../core/features/index.ts';
import { lookalikeOf, withinOneEdit } from '../../../core/features/lookalike.ts';
import { registrableDomain } from '../../../core/features/registrable-domain.ts';

const current = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);
// The settings of every model trained before link kinds existed (no linkContext key at all).
const before = new FeatureExtractor({
  ...DEFAULT_FEATURE_SETTINGS,
  linkContext: undefined,
  linkCounts: undefined,
  linkHostNames: undefined,
  linkAccountWords: undefined,
  linkOwnSite: undefined,
  scriptFeatures: undefined,
});
// The settings of the models trained with link kinds before a link to the sender's own domain was no kind of its own.
const withOwnSite = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, linkOwnSite: undefined });

function linkIds(x: FeatureExtractor, fields: Record<string, unknown>): string[] {
  return x.extract(fields).structure.filter((s) => s.startsWith('link') || s === 'shortener');
}

function phrases(fields: Record<string, unknown>): string[] {
  const f = current.extract(fields);
  return f.structure.filter((s) => s.startsWith('link:')).map((id) => describeStructure(id, f.facts));
}

function domainNames(x: FeatureExtractor, fields: Record<string, unknown>): string[] {
  const f = x.extract(fields);
  const out: string[] = [];
  for (let i = 0; i < f.count; i++) if (f.kinds[i] === KIND.domain) out.push(surfaceOf(f, i));
  return out;
}

const bugReport = {
  name: 'Ada Quill',
  email: 'ada.quill@gmail.com',
  message: 'The CLI crashes on start. Stack trace: https://gist.github.com/adaq/5f2e9 and the issue https://github.com/acme/cli/issues/12',
};

describe('links read by what they are', () => {
  it('names a link to code hosting by its kind, without counting it or memorising the host', () => {
    expect(linkIds(current, bugReport)).toEqual(['link:code']);
    expect(domainNames(current, bugReport)).toEqual([]);
    expect(phrases(bugReport)).toEqual(['a link to a code-hosting or developer site (gist.github.com)']);
  });

  it("tells a link to the sender's own domain from one elsewhere, wherever the address field is, for the models that read it", () => {
    const own = {
      message: 'Our stockist list is at https://shop.pennyworth-teas.co.uk/stockists - please add us.',
      email: 'orders@pennyworth-teas.co.uk',
    };
    expect(linkIds(withOwnSite, own)).toEqual(['link:own-site']);
    const elsewhere = { ...own, email: 'orders@brightcargo.com' };
    expect(linkIds(withOwnSite, elsewhere)).toEqual(['link:other']);
    expect(phrases(elsewhere)).toEqual(["a link to a site other than the sender's (shop.pennyworth-teas.co.uk)"]);
    // A mail provider's domain is nobody's own site.
    expect(linkIds(withOwnSite, { email: 'x@gmail.com', message: 'see https://mail.google.com/x' })).not.toContain('link:own-site');
    // Today's defaults: anyone can send from the domain they link to, so that link is of no known kind like any other.
    expect(linkIds(current, own)).toEqual(['link:other']);
    expect(phrases(own)).toEqual(['a link to a site of no known kind (shop.pennyworth-teas.co.uk)']);
  });

  it('marks shorteners, throw-away endings, official and research hosts', () => {
    expect(linkIds(current, { message: 'claim now https://bit.ly/3xYz' })).toEqual(['shortener']);
    expect(linkIds(current, { message: 'cheap pills https://pharma-deals.xyz/buy' })).toEqual(['link:throwaway']);
    expect(linkIds(current, { message: 'Bin dates: https://www.hallowfield.gov.uk/bins' })).toEqual(['link:official']);
    expect(linkIds(current, { message: 'Preprint https://arxiv.org/abs/2401.01234 and https://doi.org/10.1000/xyz' })).toEqual([
      'link:research',
    ]);
    expect(linkIds(current, { message: 'Meet here https://www.google.com/maps/place/x' })).toEqual(['link:maps']);
  });

  it("does not take a phisher's own domain, spelt with account words, for the sender's own site", () => {
    const phish = {
      email: 'notice@kontor-secure-login.com',
      message: 'Your access was limited. Confirm your details at https://kontor-secure-login.com/verify within 24 hours.',
    };
    expect(linkIds(current, phish)).toEqual(['link:other', 'link:account-words']);
    expect(phrases(phish)).toContain('a link to a host named with account or payment words (kontor-secure-login.com)');
    const withAccountWords = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, linkOwnSite: undefined });
    expect(linkIds(withAccountWords, phish)).toEqual(['link:account-words']);
    // Models trained before this setting read it as they did: the sender's own site.
    const earlier = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, linkAccountWords: undefined, linkOwnSite: undefined });
    expect(linkIds(earlier, phish)).toEqual(['link:own-site']);
    // A business's own domain without such words is still its own site there, and a reference host is never of that kind.
    expect(
      linkIds(withAccountWords, { email: 'jo@birchfield-joinery.com', message: 'Our work: https://birchfield-joinery.com/kitchens' }),
    ).toEqual(['link:own-site']);
    expect(linkIds(current, { message: 'Logs: https://gitlab.com/acme/login-service/-/issues/4' })).toEqual(['link:code']);
  });

  it('names the brand a lookalike imitates', () => {
    const msg = { message: 'Your account is limited, verify at https://paypa1-secure.com/login now' };
    expect(linkIds(current, msg)).toEqual(['link:lookalike', 'link:account-words']);
    expect(phrases(msg)).toEqual([
      'a link to a lookalike of paypal.com (paypa1-secure.com)',
      'a link to a host named with account or payment words (paypa1-secure.com)',
    ]);
    // The capital I typed for an l is read from the text as sent.
    expect(linkIds(current, { message: 'Payment failed: https://netfIix-billing.com/update' })).toContain('link:lookalike');
  });

  it("keeps a link's ending but not its host name as a feature (the kinds say what it is), and a blog comment's own URL field as before", () => {
    const msg = { message: 'Our new menu is up at https://www.marrowbone-kitchen.net/menu, have a look', url: 'https://rowanbakes.com' };
    expect(domainNames(current, msg)).toEqual(['.net', 'rowanbakes.com', '.com']);
    const withHosts = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, linkHostNames: undefined });
    expect(domainNames(withHosts, msg)).toEqual(['marrowbone-kitchen.net', '.net', 'rowanbakes.com', '.com']);
    // The reasoning can still name the link by what it is and where it points.
    expect(phrases(msg)).toEqual(['a link to a site of no known kind (marrowbone-kitchen.net)']);
  });

  it('changes nothing for models trained before link kinds: their counts and hosts stay as they were', () => {
    expect(linkIds(before, bugReport)).toEqual(['links=2']);
    expect(domainNames(before, bugReport)).toEqual(expect.arrayContaining(['gist.github.com', 'github.com']));
    expect(featureVersion(before.settings)).toBe('9-d9ed187c2d3f');
    expect(featureVersion(current.settings)).not.toBe('9-d9ed187c2d3f');
  });
});

describe('lookalikeOf', () => {
  it('finds look-alike characters, one typo, and a brand on someone else’s domain', () => {
    expect(lookalikeOf('amaz0n-orders.co', 'amaz0n-orders.co')).toBe('amazon.com');
    expect(lookalikeOf('rnicrosoft-support.net', 'rnicrosoft-support.net')).toBe('microsoft.com');
    expect(lookalikeOf('docusiqn.com', 'docusiqn.com')).toBe('docusign.com');
    expect(lookalikeOf('paypal.com.account-check.top', 'paypal.com.account-check.top')).toBe('paypal.com');
    expect(lookalikeOf('arxiv.org.papers-index.net', 'arxiv.org.papers-index.net')).toBe('arxiv.org');
  });

  it('leaves the brands’ own domains and ordinary words alone', () => {
    for (const host of [
      'paypal.com',
      'amazon.co.uk',
      'gist.github.com',
      'adaq.github.io',
      'apply-now.com',
      'modern-bakery.com',
      'googleapis.com',
    ])
      expect(lookalikeOf(host, host)).toBeNull();
  });

  it('withinOneEdit counts one insertion, deletion, substitution or swap', () => {
    expect(withinOneEdit('binnance', 'binance')).toBe(true);
    expect(withinOneEdit('shopfiy', 'shopify')).toBe(true);
    expect(withinOneEdit('shoplfy', 'shopify')).toBe(true);
    expect(withinOneEdit('shpfy', 'shopify')).toBe(false);
  });

  it('registrableDomain keeps a country suffix', () => {
    expect(registrableDomain('shop.acme.co.uk')).toBe('acme.co.uk');
    expect(registrableDomain('gist.github.com')).toBe('github.com');
    expect(registrableDomain('localhost')).toBe('localhost');
  });
});
