import { describe, expect, it } from 'vitest';
import { renderMarkdown, summarize } from '../../training/experiments/render.ts';
import type { SiteResult } from '../../training/experiments/protocol.ts';
import { binaryMetrics } from '../../training/model/metrics.ts';

const site = (name: string, kind: SiteResult['kind'], f1Hits: number): SiteResult => {
  // 4 spam (f1Hits caught) and 4 legitimate (one flagged) at threshold 0.5.
  const items: { source: string; label: 0 | 1; p: number }[] = [0, 1, 2, 3].map((i) => ({
    source: name,
    label: 1 as const,
    p: i < f1Hits ? 0.9 : 0.1,
  }));
  items.push(...[0, 1, 2, 3].map((i) => ({ source: name, label: 0 as const, p: i === 0 ? 0.9 : 0.1 })));
  return { site: name, kind, n: 8, spam: 4, families: { nblr: { threshold: 0.5, metrics: binaryMetrics(items, 0.5) } } };
};

describe('the protocol table', () => {
  const results = [site('video: A', 'video', 4), site('video: B', 'video', 2), site('held-out x.jsonl', 'holdout', 0)];

  it('averages over the held-out sites only, with the spread between them', () => {
    const s = summarize(results, 'nblr');
    const a = results[0]!.families.nblr!.metrics.f1;
    const b = results[1]!.families.nblr!.metrics.f1;
    expect(s.meanF1).toBeCloseTo((a + b) / 2, 10);
    expect(s.sdF1).toBeCloseTo(Math.abs(a - b) / 2, 10);
    expect(s.minF1).toBe(Math.min(a, b));
    expect(s.meanFpr).toBeCloseTo(0.25, 10);
  });

  it('lists the held-out files apart from the sites', () => {
    const md = renderMarkdown(results, ['nblr'], { nblr: 'NB-LR' });
    const [sites, held] = md.split('Held-out files');
    expect(sites).toContain('| video: B |');
    expect(sites).not.toContain('x.jsonl');
    expect(held).toContain('| held-out x.jsonl |');
    expect(sites).toContain('2 sites');
  });
});
