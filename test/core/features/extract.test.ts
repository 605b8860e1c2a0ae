import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor, KIND, surfaceOf, type Features } from '../../../core/features/index.ts';
import fixtures from '../../fixtures/features/submissions.json' with { type: 'json' };

// The snapshots pin the settings of models trained before link kinds: those models must featurize as they did.
// Link kinds have their own tests (link-context.test.ts), scriptFeatures in structure.test.ts.
const extractor = new FeatureExtractor({
  ...DEFAULT_FEATURE_SETTINGS,
  linkContext: undefined,
  linkCounts: undefined,
  linkHostNames: undefined,
  scriptFeatures: undefined,
});
const KIND_NAME = Object.fromEntries(Object.entries(KIND).map(([k, v]) => [v, k]));

/** A readable, stable picture of a feature vector: kind, the words it came from, value, bucket. */
function picture(f: Features): string[] {
  const rows: string[] = [];
  for (let i = 0; i < f.count; i++)
    rows.push(`${KIND_NAME[f.kinds[i] as number]} ${surfaceOf(f, i)} = ${(f.values[i] as number).toFixed(4)} @${f.indices[i]}`);
  return rows.sort();
}

describe('feature extraction', () => {
  it.each(Object.entries(fixtures))('%s: features are stable (snapshot)', (_name, fields) => {
    const f = extractor.extract(fields as Record<string, unknown>);
    expect({ structure: f.structure, features: picture(f) }).toMatchSnapshot();
  });

  it('is deterministic and does not leak state between calls', () => {
    const a = picture(extractor.extract(fixtures.english_spam));
    extractor.extract(fixtures.japanese_booking);
    expect(picture(extractor.extract(fixtures.english_spam))).toEqual(a);
  });

  it('scales each text group to unit length, so a long message does not outweigh a short one', () => {
    const f = extractor.extract({ message: 'hello there, I need a quote for chairs '.repeat(30) });
    const norms = new Map<number, number>();
    for (let i = 0; i < f.count; i++) {
      const k = f.kinds[i] as number;
      if (k === KIND.word || k === KIND.bigram || k === KIND.char) {
        const g = k === KIND.char ? 2 : 1;
        norms.set(g, (norms.get(g) ?? 0) + (f.values[i] as number) ** 2);
      }
    }
    expect(norms.get(1)).toBeCloseTo(1, 5);
    expect(norms.get(2)).toBeCloseTo(1, 5);
  });

  it('lets a very short text speak less loudly: a group is scaled by at most 1/sqrt(normFloor)', () => {
    const floor = DEFAULT_FEATURE_SETTINGS.normFloor as number;
    const f = extractor.extract({ message: 'Good video' });
    let words = 0;
    let count = 0;
    for (let i = 0; i < f.count; i++) {
      const k = f.kinds[i] as number;
      if (k === KIND.word || k === KIND.bigram) {
        words += (f.values[i] as number) ** 2;
        count++;
      }
    }
    // Two words, their bigram and the opening word, each counted once: squared length 4 / floor instead of 1.
    expect(count).toBe(4);
    expect(words).toBeCloseTo(4 / floor, 5);
  });

  it('reads the signals a form spam filter needs', () => {
    const f = extractor.extract(fixtures.name_link_honeypot);
    expect(f.structure).toEqual(
      expect.arrayContaining(['link-in-name', 'honeypot-filled', 'disposable-email', 'shortener', 'markup-link']),
    );
    expect(f.facts.links).toBe(2);
    const plain = extractor.extract({
      name: 'Ana',
      email: 'ana@gmail.com',
      message: 'Hola, ¿tienen mesa para dos el sábado?',
      website_hp: '',
    });
    expect(plain.structure).toContain('honeypot-empty');
    expect(plain.structure).toContain('links=0');
    expect(plain.structure).not.toContain('gibberish=some');
  });

  it('sees through obfuscation: invisible characters, full-width letters, look-alike alphabets', () => {
    const clean = extractor.extract({ message: 'free viagra' });
    const hidden = extractor.extract({ message: 'fr\u200bee ｖｉａｇｒａ' });
    expect(picture(hidden)).toEqual(picture(clean));
    expect(extractor.extract({ message: 'Verify your p\u0430ypal account' }).structure).toContain('mixed-script-word');
  });

  it('counts links spelled to dodge link filters, and not sentence ends', () => {
    for (const message of [
      'Watch my new video at www.youtube. com/watch?v=abc',
      'see youtube. com/watch?v=abc',
      'cheap meds at pharma-shop dot com today',
      'visit best-deals .ru now',
    ]) {
      const f = extractor.extract({ message });
      expect(f.structure, message).toContain('obfuscated-link');
      expect(f.facts.links, message).toBe(1);
    }
    const spaced = extractor.extract({ message: 'Go to seo-rank .com for backlinks' });
    const plain = extractor.extract({ message: 'Go to seo-rank.com for backlinks' });
    // The same domain feature as the link written plainly.
    const domains = (f: Features) =>
      picture(f)
        .filter((r) => r.startsWith('domain '))
        .map((r) => r.split('@')[1]);
    expect(domains(spaced)).toEqual(domains(plain));
    for (const message of [
      'We met at the office. Com and Net are my cats.',
      'Obrigado. Com os melhores cumprimentos, Ana',
      'Thanks. Regards, Ana',
    ]) {
      expect(extractor.extract({ message }).structure, message).not.toContain('obfuscated-link');
    }
  });

  it('reads an address spelled out as an address, not as a link written to dodge filters', () => {
    for (const message of [
      'Please write to tom dot hall at outlook dot com about it',
      'Write to tom dot hall at acme dot com',
      'Kontakt: anna(at)firma.de',
      'or mail me at gmail.com directly',
    ]) {
      const f = extractor.extract({ message });
      expect(f.structure, message).toContain('email-in-text');
      expect(f.structure, message).not.toContain('obfuscated-link');
      expect(f.facts.links, message).toBe(0);
    }
    // "at" before a site that is not a mail provider is a link.
    expect(extractor.extract({ message: 'Look at cheap-pills dot com today' }).facts.links).toBe(1);
    expect(extractor.extract({ message: 'Look at cheap-pills.com today' }).facts.links).toBe(1);
  });

  it('gives the word each message field opens with a feature of its own', () => {
    const openings = (fields: Record<string, string>) => {
      const f = extractor.extract(fields);
      const out: string[] = [];
      // A bigram-kind feature that spans one word is an opening; a pair of neighbours spans two.
      for (let s = 0; s < f.count; s++) {
        const text = f.texts[f.fields[s] as number] ?? '';
        const span = text.slice(f.starts[s], f.ends[s]);
        if (f.kinds[s] === KIND.bigram && !span.includes(' ')) out.push(span);
      }
      return out;
    };
    expect(openings({ message: 'Dear sir, buy now' })).toEqual(['dear']);
    expect(openings({ subject: 'Hello there', message: 'Quick question about my order' })).toEqual(['hello', 'quick']);
    // Name and email fields are read as role tokens, which have no pairs and no opening.
    expect(openings({ name: 'Anna Berg', message: '  ...Thanks!' })).toEqual(['thanks']);
    expect(new FeatureExtractor({ ...extractor.settings, openingWords: false }).extract({ message: 'Dear sir' }).count).toBe(
      extractor.extract({ message: 'Dear sir' }).count - 1,
    );
  });

  it('knows a disposable address in the email field however it is spelled', () => {
    for (const email of [
      'tom@mailinator.com',
      'tom(at)mailinator dot com',
      'tom dot hall at mailinator dot com',
      'tom at mailinator dot com',
      'tom@mailinator dot com',
      'tom [at] mailinator [dot] com',
      'tom(at)mailinator(dot)com',
    ]) {
      const f = extractor.extract({ email });
      expect(f.structure, email).toContain('disposable-email');
      expect(f.facts.disposableDomain, email).toBe('mailinator.com');
      expect(f.facts.links, email).toBe(0);
    }
    expect(extractor.extract({ email: 'tom at acme dot com' }).structure).not.toContain('disposable-email');
  });

  it('names a spelled-out domain as it resolves, for the reasoning to quote', () => {
    const names = (fields: Record<string, string>, kind: number) => {
      const f = extractor.extract(fields);
      const out: string[] = [];
      for (let s = 0; s < f.count; s++) if (f.kinds[s] === kind) out.push(surfaceOf(f, s));
      return out;
    };
    for (const email of ['tom at mailinator dot com', 'tom [at] mailinator [dot] com', 'tom(at)mailinator(dot)com', 'tom@mailinator.com']) {
      expect(names({ email }, KIND.emailDomain), email).toEqual(['mailinator.com', '.com']);
    }
    expect(names({ message: 'Cheap meds at cheap-pills dot com today' }, KIND.domain)).toEqual(['cheap-pills.com', '.com']);
    expect(names({ message: 'see best-deals . ru now' }, KIND.domain)).toEqual(['best-deals.ru', '.ru']);
  });

  it('reads "[dot]" and "(dot)" like " dot ": an address after "@" or "[at]", a link otherwise', () => {
    for (const message of ['Write to tom [at] acme [dot] com', 'Write to tom(at)acme(dot)com', 'Write to tom@acme dot com']) {
      const f = extractor.extract({ message });
      expect(f.structure, message).toContain('email-in-text');
      expect(f.facts.links, message).toBe(0);
    }
    const link = extractor.extract({ message: 'Cheap meds at cheap-pills [dot] com today' });
    expect(link.structure).toContain('obfuscated-link');
    expect(link.facts.links).toBe(1);
  });

  it('reads a missing space after a full stop as a sentence end, not a link', () => {
    for (const message of [
      'The upload is broken.In the end I mailed it.',
      'Waiting for ur reply.Be frank',
      'Txt her name to 82277.Win a prize',
    ]) {
      expect(extractor.extract({ message }).facts.links, message).toBe(0);
    }
    for (const message of ['Visit cheap-pills.com now', 'see MySite.Com/offer', 'best deals at www.Shop.In']) {
      expect(extractor.extract({ message }).facts.links, message).toBe(1);
    }
  });

  it('reads Turkish text as Latin script, dotted capitals included', () => {
    const f = extractor.extract({ message: 'İstanbul ofisinize gelmek istiyorum, randevu alabilir miyim?' });
    expect(f.structure).toContain('script:latin');
    expect(f.structure).not.toContain('script:other');
    expect(f.facts.upper).toBe(1);
  });

  it('marks a message that is a link and little else, and not a sentence with one link, in any script', () => {
    for (const message of [
      'http://9gag.com/gag/aAvPwj9',
      'check this https://soundcloud.com/j-supt/fils-du-son',
      'https://www.facebook.com/myfunnyriddles lol',
    ]) {
      expect(extractor.extract({ message }).structure, message).toContain('mostly-links');
    }
    for (const message of [
      'Hi, here is the screenshot of the error: https://imgur.com/a/x7Yq2 thanks',
      // No spaces between the question and the link: the link must not swallow the sentence.
      '請問這支有0.6L的嗎？https://www.shanjian-coffee.com.tw/products/pour-over-kettle-copper-0-9l 謝謝',
      'watch my videos xx',
      // Two hosts in one run of URL characters are one link's worth of text, not two.
      'https://a.com/?r=https://b.com please check this out today friend',
    ]) {
      expect(extractor.extract({ message }).structure, message).not.toContain('mostly-links');
    }
    // A link in the name or a website field is not the message.
    expect(
      extractor.extract({ name: 'https://cheap-seo.biz', website: 'https://ana.dev', message: 'Hello, do you ship to Chile?' }).structure,
    ).not.toContain('mostly-links');
  });

  it('tokenizes scripts without spaces into character bigrams and keeps non-Latin words', () => {
    const ja = extractor.extract(fixtures.japanese_booking);
    const words = new Set<string>();
    for (let i = 0; i < ja.count; i++) if (ja.kinds[i] === KIND.word) words.add(surfaceOf(ja, i));
    expect(words).toContain('予約');
    const ru = extractor.extract({ message: 'Здравствуйте, когда будет доставка?' });
    const ruWords: string[] = [];
    for (let i = 0; i < ru.count; i++) if (ru.kinds[i] === KIND.word) ruWords.push(surfaceOf(ru, i));
    expect(ruWords).toEqual(expect.arrayContaining(['здравствуйте', 'когда', 'доставка']));
  });

  it('flattens nested dynamic-form values and takes roles from field names', () => {
    const f = extractor.extract({
      contact: { name: 'Get cash http://x.top', email: 'a@b.com' },
      answers: [{ q: 'Why?', a: 'Because I want to book a table for four people' }],
    });
    expect(f.roles).toEqual(['name', 'email', 'other', 'message']);
    expect(f.structure).toContain('link-in-name');
  });

  it('reads [{name, value}] field lists (HubSpot, serializeArray) and PHP-style bracketed names by what they name', () => {
    const listed = extractor.extract({
      fields: [
        { name: 'firstname', value: 'Anna' },
        { name: 'email', value: 'anna@web.de' },
        { name: 'message', value: 'Hallo, ist der Tisch frei?' },
      ],
    });
    expect(listed.roles).toEqual(['name', 'email', 'message']);
    // Outside a list, {name, value} is two fields of its own: a person called Ada and a value.
    expect(extractor.extract({ name: 'Ada', value: '5000' }).roles).toEqual(['name', 'other']);
    const bracketed = extractor.extract({
      'wpforms[fields][0][first]': 'Ann',
      'form_fields[email]': 'ann@mail.com',
      'message[0][value]': 'Do you deliver on Sundays?',
      'wpforms[hp]': 'http://spam.top',
    });
    expect(bracketed.roles).toEqual(['name', 'email', 'message', 'honeypot']);
    expect(bracketed.structure).toContain('honeypot-filled');
  });

  it('flags keyboard mashes as gibberish, and not real words in any language or order codes', () => {
    for (const mash of ['asdasd qweqwe', 'kjhsdf sdfsdf', 'фывапролдж']) {
      expect(extractor.extract({ message: mash }).structure.some((s) => s.startsWith('gibberish='))).toBe(true);
    }
    const words = 'property report pretty sapere Deutschland typewriter proprietor проверка Павлова order r7tkq2mxw9lp4nbe8';
    expect(extractor.extract({ message: words }).structure.some((s) => s.startsWith('gibberish='))).toBe(false);
  });

  it('sees the same text in several fields and unfilled templates, which people do not send', () => {
    const bot = extractor.extract({
      'your-name': 'cwvbwe',
      'your-subject': 'cwvbwe',
      'your-message': 'cwvbwe',
      'your-email': 'cwvbwe@x.ru',
    });
    expect(bot.structure).toContain('repeated-field-text');
    // Typeform repeats its bookkeeping ("type": "text") in every answer: that is not a person repeating text.
    const typeform = extractor.extract({
      answers: [
        { type: 'text', text: 'Ann Lee' },
        { type: 'text', text: 'Can I bring my dog?' },
      ],
    });
    expect(typeform.structure).not.toContain('repeated-field-text');
    expect(extractor.extract({ message: '{Hello|Hi|Hey} {$FIRSTNAME}, check this {great|amazing} offer' }).structure).toContain('template');
    expect(extractor.extract({ message: 'Our budget is {roughly} 5k; see the brief: a | b' }).structure).not.toContain('template');
  });

  it('bounds the work per submission: text past maxChars is not featurized', () => {
    const f = extractor.extract({ message: 'a'.repeat(DEFAULT_FEATURE_SETTINGS.maxChars + 5000) });
    expect(f.facts.truncated).toBe(true);
    expect(f.facts.messageChars).toBe(DEFAULT_FEATURE_SETTINGS.maxChars);
  });
});
