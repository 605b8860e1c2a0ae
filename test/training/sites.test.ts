import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataDir } from '../../training/data/loaders.ts';
import { LANGUAGE_GROUPS, LAYOUT_GROUPS, protocolSites, readFormMeta } from '../../training/experiments/sites.ts';

const dataDir = path.resolve('data');

describe('the sites of the leave-one-site-out protocol', () => {
  const { records } = loadDataDir(dataDir);
  const meta = readFormMeta(path.join(dataDir, 'forms'));
  const sites = protocolSites(records, meta);

  it('holds out every form in exactly one layout group, and every non-English form in exactly one language group', () => {
    const forms = records.filter((r) => r.source === 'forms');
    const layoutSites = sites.filter((s) => s.kind === 'layouts');
    const languageSites = sites.filter((s) => s.kind === 'languages');
    const unplaced = forms.filter((r) => layoutSites.filter((s) => s.has(r)).length !== 1);
    expect(unplaced.map((r) => meta.get(r.id)?.layout)).toEqual([]);
    const foreign = forms.filter((r) => meta.get(r.id)?.lang !== 'en');
    expect(foreign.filter((r) => languageSites.filter((s) => s.has(r)).length !== 1).map((r) => meta.get(r.id)?.lang)).toEqual([]);
    expect(Object.values(LAYOUT_GROUPS).flat().length).toBe(new Set(Object.values(LAYOUT_GROUPS).flat()).size);
    expect(Object.values(LANGUAGE_GROUPS).flat().length).toBe(new Set(Object.values(LANGUAGE_GROUPS).flat()).size);
  });

  it('holds out each video and SMS on their own, each site with both labels', () => {
    const videos = sites.filter((s) => s.kind === 'video');
    expect(videos.map((s) => s.name)).toEqual(['video: KatyPerry', 'video: LMFAO', 'video: Eminem', 'video: Shakira']);
    for (const r of records.filter((x) => x.source === 'youtube')) expect(videos.filter((s) => s.has(r))).toHaveLength(1);
    for (const s of sites) {
      const held = records.filter(s.has);
      expect(new Set(held.map((r) => r.label)), s.name).toEqual(new Set(['spam', 'legitimate']));
    }
  });
});
