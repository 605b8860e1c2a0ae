import { SCRIPT_NAMES } from './char-class.ts';
import type { Facts } from './facts.ts';
import { describeLinkKind } from './link-context.ts';

// Ids come from constant tables: no string is built per request, and each id's hash is computed once.
const LINK_IDS = prefixed('links=', ['0', '1', '2', '3-4', '5+']);
const CAPS_IDS = prefixed('caps=', ['low', 'normal', 'high', 'shouting']);
const DIGIT_IDS = prefixed('digits=', ['none', 'few', 'some', 'many']);
const SYMBOL_IDS = prefixed('symbols=', ['few', 'some', 'many']);
const LENGTH_IDS = prefixed('length=', ['0', '1-19', '20-79', '80-299', '300-999', '1000-2999', '3000+']);
const SCRIPT_IDS = prefixed('script:', SCRIPT_NAMES);
const HONEYPOT_IDS = { empty: 'honeypot-empty', filled: 'honeypot-filled' } as const;

function prefixed(prefix: string, names: readonly string[]): string[] {
  return names.map((n) => `${prefix}${n}`);
}

/**
 * Structural signals as a linear model sees them: bucketed indicators. Ids are part of the feature version. Without
 * `scripts` the writing systems are not ids (the scriptFeatures setting); script-mix still counts them.
 */
export function structureIds(f: Facts, scripts = true): string[] {
  const ids: string[] = [];
  ids.push(LINK_IDS[bucket(f.links, [0, 1, 2, 4])] as string);
  // Four fifths: a link with a word or two around it ("see this", "lol") is still a link posted, not a message.
  // Links are measured only with the mostlyLinks setting, as obfuscated links are only looked for with theirs.
  if (f.messageLinkChars > 0 && f.messageLinkChars * 5 >= f.messageNonSpace * 4) ids.push('mostly-links');
  if (f.obfuscatedLinks > 0) ids.push('obfuscated-link');
  if (f.markupLinks > 0) ids.push('markup-link');
  if (f.linksInName > 0) ids.push('link-in-name');
  if (f.emailsInName > 0) ids.push('email-in-name');
  if (f.nameTokens > 4) ids.push('long-name');
  if (f.emailsInText > 0) ids.push('email-in-text');
  const alnum = f.letters + f.digits;
  // Over letters that have capitals at all: Chinese or Arabic text says nothing about shouting.
  if (f.cased >= 12) ids.push(CAPS_IDS[bucket(f.upper / f.cased, [0.05, 0.2, 0.5])] as string);
  if (alnum >= 12) ids.push(DIGIT_IDS[bucket(f.digits / alnum, [0, 0.1, 0.3])] as string);
  if (alnum + f.symbols >= 12) ids.push(SYMBOL_IDS[bucket(f.symbols / (alnum + f.symbols), [0.05, 0.15])] as string);
  if (f.maxRepeat >= 4) ids.push('repeat-run');
  let letterScripts = 0;
  for (let i = 0; i < SCRIPT_NAMES.length; i++) {
    if (f.scripts & (1 << i)) {
      if (scripts) ids.push(SCRIPT_IDS[i] as string);
      if (SCRIPT_NAMES[i] !== 'other') letterScripts++;
    }
  }
  if (letterScripts >= 2) ids.push('script-mix');
  if (f.mixedScriptWords > 0) ids.push('mixed-script-word');
  if (f.gibberishWords > 0)
    ids.push(f.gibberishWords >= 2 && f.gibberishWords * 5 >= f.longLatinWords ? 'gibberish=many' : 'gibberish=some');
  if (f.honeypot !== 'none') ids.push(HONEYPOT_IDS[f.honeypot]);
  if (f.disposableDomain) ids.push('disposable-email');
  if (f.shortener) ids.push('shortener');
  if (f.spacedLetters) ids.push('spaced-letters');
  if (f.repeatedFieldText) ids.push('repeated-field-text');
  if (f.template) ids.push('template');
  ids.push(LENGTH_IDS[bucket(f.messageChars, [0, 19, 79, 299, 999, 2999])] as string);
  return ids;
}

/** Index of the first upper bound that x does not exceed; the last index when it exceeds them all. */
function bucket(x: number, upper: readonly number[]): number {
  for (let i = 0; i < upper.length; i++) if (x <= (upper[i] as number)) return i;
  return upper.length;
}

// Facts that say something is absent, or that hold for most text (measured share of data/'s 9,451 records with
// the shipped model in docs/model.md): the model reads them as the start of an ordinary message, so they are
// not evidence about this one, and the reasoning never names them.
const NOT_EVIDENCE = new Set([
  'links=0',
  'digits=none',
  'digits=few',
  'caps=low',
  'caps=normal',
  'symbols=few',
  'symbols=some',
  'length=0',
  'honeypot-empty',
]);

/**
 * Whether structure fact `id` is something a person can see in the submission and would accept as a reason:
 * not an absence (no links, no digits, no message, an empty honeypot), not an ordinary share of capitals, digits
 * or symbols, and not the writing system, which every text has.
 */
export function isEvidence(id: string): boolean {
  return !NOT_EVIDENCE.has(id) && !id.startsWith('script:');
}

/** A phrase that is true of this submission, for the reasoning sentence. */
export function describeStructure(id: string, f: Facts): string {
  if (id.startsWith('links=')) {
    if (f.links === 0) return 'no links';
    const hosts = f.linkHosts.length ? ` (${f.linkHosts.slice(0, 2).join(', ')})` : '';
    return f.links === 1 ? `a link${hosts}` : `${f.links} links${hosts}`;
  }
  if (id.startsWith('caps=')) {
    const pct = Math.round((100 * f.upper) / Math.max(1, f.cased));
    // All-lower-case text has none at all: "little use" would suggest a choice.
    if (id === 'caps=low') return f.upper === 0 ? 'no capital letters' : 'little use of capitals';
    return `${pct}% capital letters`;
  }
  if (id.startsWith('digits='))
    return id === 'digits=none' ? 'no digits' : `${Math.round((100 * f.digits) / Math.max(1, f.letters + f.digits))}% digits`;
  if (id.startsWith('symbols=')) return id === 'symbols=few' ? 'few symbols' : 'many symbols and punctuation marks';
  if (id.startsWith('script:')) return `${id.slice(7)} script`;
  if (id.startsWith('link:')) return describeLinkKind(id, f);
  if (id.startsWith('length=')) {
    if (f.messageChars === 0) return 'no message text';
    const fields = f.messageFields > 1 ? ` in ${f.messageFields} message fields` : '';
    return `a ${lengthWord(f.messageChars)} message (${f.messageChars} ${f.messageChars === 1 ? 'character' : 'characters'}${fields})`;
  }
  if (id.startsWith('gibberish='))
    return `gibberish-looking words (${f.gibberishExamples
      .slice(0, 2)
      .map((w) => `'${w}'`)
      .join(', ')})`;
  switch (id) {
    case 'obfuscated-link':
      return 'a link written with spaces or "dot" to dodge link filters';
    case 'markup-link':
      return 'HTML or BBCode link markup';
    case 'mostly-links':
      return f.links === 1 ? 'a message that is a link and little else' : 'a message that is links and little else';
    case 'link-in-name':
      return 'a link in the name field';
    case 'email-in-name':
      return 'an email address in the name field';
    case 'long-name':
      return `a name of ${f.nameTokens} words`;
    case 'email-in-text':
      return 'an email address in the message';
    case 'repeat-run':
      return `a character repeated ${f.maxRepeat} times in a row`;
    case 'script-mix':
      return 'several writing systems mixed';
    case 'mixed-script-word':
      return 'words mixing look-alike letters of different alphabets';
    case 'honeypot-filled':
      return 'a hidden honeypot field filled in';
    case 'honeypot-empty':
      return 'the hidden honeypot field left empty';
    case 'disposable-email':
      return `a disposable email address (${f.disposableDomain ?? ''})`;
    case 'shortener':
      return `a shortened link (${f.shortener ?? ''})`;
    case 'spaced-letters':
      return 'words spelled out with spaces between the letters';
    case 'repeated-field-text':
      return 'the same text in several fields';
    case 'template':
      return 'an unfilled template ({$NAME} placeholders or {a|b} spintax)';
    default:
      return id;
  }
}

function lengthWord(n: number): string {
  return n < 20 ? 'very short' : n < 80 ? 'short' : n < 1000 ? 'medium-length' : 'long';
}
