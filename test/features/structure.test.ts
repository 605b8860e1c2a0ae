import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURE_SETTINGS, FeatureExtractor, describeStructure } from '../../service/features/index.ts';
import { structureIds } from '../../service/features/structure.ts';

const extractor = new FeatureExtractor(DEFAULT_FEATURE_SETTINGS);

function lengthPhrase(message: string): string {
  const { facts } = extractor.extract({ message });
  const id = structureIds(facts).find((s) => s.startsWith('length='));
  return describeStructure(id as string, facts);
}

describe('describeStructure', () => {
  it('counts a message length in words a reader would write', () => {
    expect(lengthPhrase('k')).toMatch(/\(1 character\)$/);
    expect(lengthPhrase('ok')).toMatch(/\(2 characters\)$/);
  });
});
