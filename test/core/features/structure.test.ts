import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor, describeStructure } from '../../../core/features/index.ts';
import { structureIds } from '../../../core/features/structure.ts';

const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);

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
