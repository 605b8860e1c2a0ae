import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadClassifier } from '../../../core/classifier/load.ts';
import type { LinearClassifier } from '../../../core/classifier/linear-classifier.ts';
import { repoRoot } from '../../../service/config/env.ts';
import { loadDataDir } from '../../../training/data/loaders.ts';
import { splitRecords, normalizedText } from '../../../training/data/split.ts';
import type { LabelledRecord } from '../../../training/data/record.ts';

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
      // A confidence under one half (spam probability above 0.5 but under the threshold) is not called likely.
      expect(v.reasoning.startsWith(`${v.confidence < 0.5 ? 'Borderline' : 'Likely'} ${v.status} (${v.confidence.toFixed(2)})`)).toBe(true);
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

describe('reasoning phrases that a reader checks against the submission', () => {
  const why = (fields: Record<string, unknown>) => classifier.classify(fields as never).reasoning;

  it('calls a legitimate verdict under 0.5 borderline, not likely', () => {
    const v = classifier.classify({ name: 'Jenny', email: 'jenny.k@outlook.com', message: 'Need more customers? Reply YES for details.' });
    expect(v.status).toBe('legitimate');
    expect(v.confidence).toBeLessThan(0.5);
    expect(v.reasoning).toMatch(/^Borderline legitimate \(0\.4\d\)/);
  });

  it('names one link once: its host, not also its top-level domain', () => {
    const r = why({ name: 'Owen', email: 'owen.j@gmail.com', message: 'Loved your recipe video: https://youtu.be/abc123 could you post the written version?' });
    expect(r).toContain("a link to 'youtu.be'");
    expect(r).not.toContain("'.be'");
  });

  it('tells one email address from two', () => {
    const one = why({ name: 'Camille Durand', email: 'camille.durand@orange.fr', message: 'Bonjour, je voudrais savoir si vous livrez à Lyon le samedi. Merci beaucoup.' });
    expect(one).toContain("an email address at 'orange.fr'");
    expect(one).not.toContain("'.fr'");
    const two = why({ name: 'Laura Benson', email: 'laura.benson@orange.fr', secondary: 'laura.b@wanadoo.fr', message: 'Please send the quote to both addresses.' });
    expect(two).toMatch(/email addresses at '[^']+', '[^']+'/);
  });

  it('says when a message length sums a subject and a message', () => {
    const r = why({ name: 'Tim', email: 'tim@gmail.com', subject: 'Question regarding the warranty terms on my dishwasher', message: 'Is it still covered?' });
    expect(r).toContain('a short message (74 characters in 2 message fields)');
  });

  it('counts the words of a name over its first and last name fields as one name', () => {
    const r = why({
      first_name: 'Juan Carlos',
      last_name: 'Pérez de la Vega',
      email: 'jcperez.marketing@gmail.com',
      message: 'We can increase your website traffic and sales with our digital marketing services. Reply for a free proposal.',
    });
    expect(r).toContain('a name of 6 words');
  });

  it("ignores a CAPTCHA widget's token: the same verdict and reasoning with or without it", () => {
    // 480 characters of base64url, as reCAPTCHA v3 posts: before, "40% capital letters" and "gibberish-looking words" flagged the post.
    const token = `03AFcWeA${'tKsf2rcDkdfrU-9xQ_7LmPz0aBcWvYn3'.repeat(15)}`;
    const post = { 'your-name': 'Mike', 'your-email': 'mike.t@gmail.com', 'your-message': 'Do you offer a discount for bulk orders? We need 200 branded mugs for a charity run.', _wpcf7: '512' };
    const plain = classifier.classify(post);
    expect(plain.status).toBe('legitimate');
    for (const key of ['g-recaptcha-response', '_wpcf7_recaptcha_response', 'h-captcha-response', 'cf-turnstile-response']) {
      const v = classifier.classify({ ...post, [key]: token });
      expect(v.spamProbability, key).toBe(plain.spamProbability);
      expect(v.reasoning, key).toBe(plain.reasoning);
    }
  });
});
