import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { LabelledRecord } from '../data/record.ts';

/**
 * The "sites" of the leave-one-site-out protocol: each YouTube video, the SMS collection, and the hand-written
 * forms grouped twice over, by layout family and by language group (a form belongs to one of each, and each
 * grouping is held out in turn). English forms are never held out as a group: they are most of the form data.
 */
export const LAYOUT_GROUPS: Readonly<Record<string, readonly string[]>> = {
  'layouts: WordPress plugins': ['cf7', 'gravity', 'wpforms', 'ninja', 'elementor'],
  'layouts: hosted builders': ['typeform', 'jotform', 'google-forms', 'squarespace', 'webflow', 'shopify', 'formspree', 'netlify'],
  'layouts: CRM and CMS': ['hubspot', 'hubspot-v3', 'drupal', 'nested'],
  'layouts: purpose-built': ['basic', 'booking', 'quote', 'support', 'job', 'newsletter-comment'],
};

/** The four language groups batches 6 and 7 were written in (data/forms/BATCH-6-NOTES.md); batch 14's Mongolian sits with Kazakh. */
export const LANGUAGE_GROUPS: Readonly<Record<string, readonly string[]>> = {
  'languages: Middle East, South Asia': ['ar', 'he', 'fa', 'ur', 'tr', 'hi', 'bn', 'ta'],
  'languages: East, Southeast Asia': ['zh', 'ja', 'ko', 'th', 'vi', 'id', 'ms', 'tl'],
  'languages: Northern, Eastern Europe': [
    'ru',
    'uk',
    'pl',
    'cs',
    'sr',
    'bg',
    'hu',
    'fi',
    'sv',
    'da',
    'no',
    'ro',
    'el',
    'hy',
    'ka',
    'kk',
    'mn',
  ],
  'languages: Western Europe, other': ['de', 'fr', 'es', 'pt', 'it', 'nl', 'ca', 'sw'],
};

/**
 * Messages with links: the batches written so that links are the point of the message, legitimate and spam
 * (data/forms/BATCH-10-NOTES.md and batch 11), held out together: links in situations the model never saw.
 */
export const LINKS_SITE = 'messages with links';
const LINK_BATCHES = /^(fl10|fl11|fs7|fs8)-/;

export interface FormMeta {
  readonly layout: string;
  readonly lang: string;
}

/** layout and lang of every hand-written form by id (the loaders keep only what training needs). */
export function readFormMeta(formsDir: string): Map<string, FormMeta> {
  const out = new Map<string, FormMeta>();
  for (const f of readdirSync(formsDir).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(path.join(formsDir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as { id: string; layout: string; lang: string };
      out.set(r.id, { layout: r.layout, lang: r.lang });
    }
  }
  return out;
}

export interface Site {
  readonly name: string;
  readonly kind: 'video' | 'sms' | 'layouts' | 'languages' | 'links';
  readonly has: (r: LabelledRecord) => boolean;
}

/** Every site the protocol holds out, in the order its table lists them. */
export function protocolSites(records: readonly LabelledRecord[], meta: ReadonlyMap<string, FormMeta>): Site[] {
  const videos = [...new Set(records.filter((r) => r.source === 'youtube').map((r) => r.id.split(':')[0] as string))].sort();
  const sites: Site[] = videos.map((v) => ({
    name: `video: ${v.replace(/^Youtube\d+-/, '')}`,
    kind: 'video',
    has: (r) => r.source === 'youtube' && r.id.startsWith(`${v}:`),
  }));
  sites.push({ name: 'SMS', kind: 'sms', has: (r) => r.source === 'sms' });
  for (const [name, layouts] of Object.entries(LAYOUT_GROUPS)) {
    sites.push({ name, kind: 'layouts', has: (r) => r.source === 'forms' && layouts.includes(meta.get(r.id)?.layout ?? '') });
  }
  for (const [name, langs] of Object.entries(LANGUAGE_GROUPS)) {
    sites.push({ name, kind: 'languages', has: (r) => r.source === 'forms' && langs.includes(meta.get(r.id)?.lang ?? '') });
  }
  sites.push({ name: LINKS_SITE, kind: 'links', has: (r) => r.source === 'forms' && LINK_BATCHES.test(r.id) });
  return sites;
}
