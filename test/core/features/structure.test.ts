import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FEATURE_SETTINGS,
  FeatureExtractor,
  KIND,
  describeStructure,
  featureVersion,
  isEvidence,
  type Features,
} from '../../../core/features/index.ts';
import { SCRIPT_NAMES } from '../../../core/features/char-class.ts';
import { structureIds } from '../../../core/features/structure.ts';

const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);
/** The option a training can choose; not the default (docs/model.md, "Writing systems as facts, not inputs"). */
const noScripts = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, scriptFeatures: false });

function phrase(prefix: string, message: string): string | undefined {
  const { facts } = extractor.extract({ message });
  const id = structureIds(facts).find((s) => s.startsWith(prefix));
  return id === undefined ? undefined : describeStructure(id, facts);
}

const lengthPhrase = (message: string): string | undefined => phrase('length=', message);

describe('describeStructure', () => {
  it('counts a message length in words a reader would write', () => {
    expect(lengthPhrase('k')).toMatch(/\(1 character\)$/);
    expect(lengthPhrase('ok')).toMatch(/\(2 characters\)$/);
  });

  it('measures capitals over letters that have them: a script without capitals gets no capitals phrase at all', () => {
    expect(phrase('caps=', '안녕하세요, 다음 주 화요일에 예약이 가능한지 알고 싶습니다. 감사합니다.')).toBeUndefined();
    expect(phrase('caps=', '您好，我想咨询一下贵公司的产品价格，请尽快回复我，谢谢。')).toBeUndefined();
    expect(phrase('caps=', 'hello, is the shop open on sunday morning? i would like to pick up my order then.')).toBe('no capital letters');
    expect(phrase('caps=', 'Hello, is the shop open on Sunday morning? I would like to pick up my order then.')).toBe(
      'little use of capitals',
    );
    // Korean beside a few capitals is not "shouting": the Hangul letters do not dilute, nor do they count as capitals.
    expect(phrase('caps=', '안녕하세요 SAMSUNG Galaxy 주문 관련 문의드립니다')).toBe('62% capital letters');
  });

  it('counts Turkish dotted capitals as capitals', () => {
    expect(phrase('caps=', 'İSTANBUL OFİSİNİZE GELMEK İSTİYORUM, RANDEVU ALABİLİR MİYİM?')).toBe('100% capital letters');
  });
});

describe('scriptFeatures', () => {
  // The defaults, and every model trained before the setting (no scriptFeatures key): the writing systems are inputs.
  const withScripts = new FeatureExtractor({ ...DEFAULT_FEATURE_SETTINGS, scriptFeatures: undefined });
  const russian = {
    name: 'Анна Петрова',
    message: 'Здравствуйте! Хотела бы записаться на приём во вторник после обеда. Подскажите, есть ли свободное время? Спасибо.',
  };

  /** The hashed indices of the structure features, by id. */
  function structureInputs(f: Features): Map<string, number> {
    const m = new Map<string, number>();
    for (let i = 0; i < f.count; i++)
      if (f.kinds[i] === KIND.structure) m.set(f.structure[f.starts[i] as number] as string, f.indices[i] as number);
    return m;
  }

  it('keeps the script out of the model inputs with scriptFeatures: false, and as a fact of the submission', () => {
    const f = noScripts.extract(russian);
    expect(f.structure.filter((id) => id.startsWith('script:'))).toEqual([]);
    const cyrillicIndex = structureInputs(withScripts.extract(russian)).get('script:cyrillic');
    expect(cyrillicIndex).toBeDefined();
    const inputs = structureInputs(f);
    expect([...inputs.keys()].filter((id) => id.startsWith('script'))).toEqual([]);
    for (let i = 0; i < f.count; i++) if (f.kinds[i] === KIND.structure) expect(f.indices[i]).not.toBe(cyrillicIndex);
    // The facts the reasoning reads still say which writing system the text is in.
    expect(SCRIPT_NAMES.filter((_, i) => (f.facts.scripts & (1 << i)) !== 0)).toEqual(['cyrillic']);
    expect(describeStructure('script:cyrillic', f.facts)).toBe('cyrillic script');
    // Every other structure input is as it was: only the script ids went.
    expect(f.structure).toEqual(withScripts.extract(russian).structure.filter((id) => !id.startsWith('script:')));
  });

  it('still counts several writing systems as script-mix, which stays an input', () => {
    const mixed = { message: 'Добрый день, пишу по поводу заказа номер 5521, трек не обновляется уже неделю, please help' };
    expect(noScripts.extract(mixed).structure).toContain('script-mix');
    expect(withScripts.extract(mixed).structure).toEqual(expect.arrayContaining(['script:latin', 'script:cyrillic', 'script-mix']));
  });

  it('featurizes a model trained with the old settings exactly as before', () => {
    const f = withScripts.extract(russian);
    expect(f.structure).toContain('script:cyrillic');
    // The reasoning never named a writing system (not evidence), with or without the setting.
    expect(isEvidence('script:cyrillic')).toBe(false);
    // The version of the defaults before the setting: a model trained with them loads and featurizes as it did.
    expect(featureVersion(withScripts.settings)).toBe('9-0303ca84d48f');
    expect(featureVersion(DEFAULT_FEATURE_SETTINGS)).toBe('9-0303ca84d48f');
    expect(featureVersion(noScripts.settings)).not.toBe('9-0303ca84d48f');
  });
});
