import { createRequire } from 'node:module';

// natural's root import loads dotenv and much more; its submodules are plain CommonJS.
const require = createRequire(import.meta.url);
const porterEn = require('natural/lib/natural/stemmers/porter_stemmer.js') as { stem(token: string): string };
const porterRu = require('natural/lib/natural/stemmers/porter_stemmer_ru.js') as { stem(token: string): string };
const stopwordsEn = (require('natural/lib/natural/util/stopwords.js') as { words: string[] }).words;

const STOPWORDS = new Set(stopwordsEn);

export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** English Porter stem for ASCII words, Russian for Cyrillic words; other scripts unchanged. Memoized by the token table. */
export function stem(token: string): string {
  return token.length <= 3 ? token : computeStem(token);
}

function computeStem(token: string): string {
  let ascii = true;
  let cyrillic = true;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) ascii = false;
    if (c < 0x430 || c > 0x451) cyrillic = false;
    if (!ascii && !cyrillic) return token;
  }
  return ascii ? porterEn.stem(token) : porterRu.stem(token);
}
