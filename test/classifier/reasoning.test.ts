import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadClassifier } from '../../service/classifier/load.ts';
import type { LinearClassifier } from '../../service/classifier/linear-classifier.ts';
import { repoRoot } from '../../service/config/env.ts';
import { loadDataDir } from '../../training/data/loaders.ts';
import { splitRecords, normalizedText } from '../../training/data/split.ts';
import type { LabelledRecord } from '../../training/data/record.ts';

let classifier: LinearClassifier;
let sample: LabelledRecord[];

beforeAll(async () => {
  classifier = await loadClassifier({ modelsDir: path.join(repoRoot, 'models') });
  const { records } = loadDataDir(path.join(repoRoot, 'data'));
  sample = splitRecords(records, { seed: 42, validation: 0.15, test: 0.15 }).test.filter((_, i) => i % 3 === 0);
});

describe('reasoning', () => {
  it('names only signals that pushed towards the verdict, strongest first, and quotes words that are in the submission', () => {
    for (const r of sample) {
      const v = classifier.classify(r.fields);
      const sign = v.status === 'spam' ? 1 : -1;
      const text = normalizedText(r.fields);
      expect(v.reasoning.startsWith(`Likely ${v.status} (${v.confidence.toFixed(2)})`)).toBe(true);
      let previous = Infinity;
      for (const s of v.signals) {
        expect(s.contribution * sign).toBeGreaterThan(0);
        expect(Math.abs(s.contribution)).toBeLessThanOrEqual(previous);
        previous = Math.abs(s.contribution);
        expect(v.reasoning).toContain(s.text);
        for (const [, quote] of s.text.matchAll(/'([^']+)'/g)) {
          const words = normalizedText({ q: quote as string }).split(' ').filter(Boolean);
          for (const w of words) expect(text).toContain(w);
        }
      }
    }
  });

  it('explains a link-stuffed submission by its links and a gibberish one by its words', () => {
    const links = classifier.classify({
      name: 'Best SEO http://rank-top.xyz',
      email: 'x@mailinator.com',
      message: 'Cheap backlinks http://a.top http://b.xyz http://c.ru http://d.info http://e.biz buy now',
    });
    expect(links.status).toBe('spam');
    expect(links.reasoning).toMatch(/link/);
    const plain = classifier.classify({ name: 'Maria', email: 'maria@gmail.com', message: 'Hi, what time do you open on Saturday? Thanks' });
    expect(plain.status).toBe('legitimate');
    expect(plain.reasoning).toMatch(/^Likely legitimate/);
  });
});
