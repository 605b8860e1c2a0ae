import { hasNoSpaceChar } from './char-class.ts';

/** What a form field holds, judged from its name (and, for opaque names like `input_4`, its value). */
export type FieldRole = 'name' | 'email' | 'url' | 'message' | 'honeypot' | 'other';

const HONEYPOT =
  /(^_?gotcha$|honey[_-]?pot|^honey$|^hp[_-]|(website|url|e?mail|field)[_-]?hp$|_hp_|(^|[_-])(bot|spam)?[_-]?trap$|(^|[_-])(fax|website|url)[_-]?(hidden|confirm|check|2)$|^leave[_-]?(this[_-]?)?(blank|empty)|^do[_-]?not[_-]?fill|^bot[_-]?field)/;
// WPForms' honeypot is `wpforms[hp]`, but Korean and Indonesian forms call the mobile number hp (`hp`, `mb_hp`,
// `no_hp`): a field so named is a honeypot unless it holds a phone number.
const HP = /(^|[_-])hp$/;
const PHONE = /^\+?[\d\s()./-]{7,24}$/;
const EMAIL = /(^|[^a-z])e?-?mail|courriel|correo/;
const URL = /(^|[^a-z])(url|website|web|site|homepage|home[_-]?page|link|linkedin|portfolio)([^a-z]|$)/;
const NAME =
  /(^|[^a-z])(name|firstname|lastname|fullname|fname|lname|author|surname|nom|nombre|vorname|nachname)([^a-z]|$)|name$|^(first|last|middle)$/;
const MESSAGE =
  /(message|msg|comment|body|text|content|enquiry|inquiry|question|detail|description|note|request|subject|cover|letter|about|remark|feedback|answer|reason|nachricht|mensaje|mensagem|sujet|betreff|^a$)/;
const NOT_NAME = /(user|company|business|file|domain|room|host|form|org|product|event|page)[_-]?name/;

/**
 * CAPTCHA widgets' answer fields (`g-recaptcha-response`, Contact Form 7's `_wpcf7_recaptcha_response`, hCaptcha,
 * Turnstile): hundreds of random base64 characters no person wrote, which read as gibberish and capitals.
 */
const CAPTCHA = /captcha|turnstile/i;

/** Field names sent by form tools for bookkeeping; not user text. */
const BOOKKEEPING = /^(_wpcf7|_wpnonce|_token|csrf|g-recaptcha|h-captcha|cf-turnstile|gform_|is_submit|form_id|formid|state_\d)/;

/** Whether a field is a CAPTCHA widget's token, which is not read at all. */
export function isCaptchaToken(key: string): boolean {
  return CAPTCHA.test(key);
}

export function roleOf(key: string, value: string): FieldRole {
  let byKey = KEY_ROLES.get(key);
  if (byKey === undefined) {
    byKey = roleOfKey(key);
    // Forms send the same few field names again and again; a bounded memo spares six regexes per field.
    if (key.length <= 64) {
      if (KEY_ROLES.size >= KEY_ROLES_LIMIT) KEY_ROLES.clear();
      KEY_ROLES.set(key, byKey);
    }
  }
  if (byKey === 'hp') return isPhoneNumber(value) ? 'other' : 'honeypot';
  return byKey ?? roleFromValue(value);
}

function isPhoneNumber(value: string): boolean {
  const v = value.trim();
  if (!PHONE.test(v)) return false;
  let digits = 0;
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) >= 0x30 && v.charCodeAt(i) <= 0x39) digits++;
  return digits >= 7;
}

const KEY_ROLES_LIMIT = 4096;
const KEY_ROLES = new Map<string, FieldRole | 'hp' | null>();

/** The role a field's name gives it, 'hp' for a honeypot or phone name, or null when the name says nothing (its value decides). */
function roleOfKey(key: string): FieldRole | 'hp' | null {
  const k = bracketLeaf(key.toLowerCase());
  if (HONEYPOT.test(k)) return 'honeypot';
  if (HP.test(k)) return 'hp';
  if (BOOKKEEPING.test(k)) return 'other';
  if (EMAIL.test(k)) return 'email';
  if (URL.test(k)) return 'url';
  if (NAME.test(k) && !NOT_NAME.test(k)) return 'name';
  if (MESSAGE.test(k)) return 'message';
  return null;
}

// Opaque names (input_4, field[7]): fall back to what the value looks like.
function roleFromValue(value: string): FieldRole {
  const v = value.trim();
  if (v.length > 3 && v.length < 255 && !v.includes(' ') && v.indexOf('@') > 0 && v.lastIndexOf('.') > v.indexOf('@')) return 'email';
  if (/^(https?:\/\/|www\.)\S+$/i.test(v)) return 'url';
  if (v.length >= 40 && v.includes(' ')) return 'message';
  // Chinese, Japanese, Thai (the tokenizer's no-space scripts) need no spaces: 20 characters there is a sentence.
  if (v.length >= 20 && hasNoSpaceChar(v)) return 'message';
  return 'other';
}

// PHP-style names (`form_fields[email]`, `contact[body]`, Drupal's `message[0][value]`): the last segment that
// names something says what the field is; indexes and `value` say nothing.
function bracketLeaf(k: string): string {
  if (!k.endsWith(']')) return k;
  const parts = k.split('[');
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = (parts[i] as string).replace(/\]$/, '');
    if (part !== '' && part !== 'value' && !/^\d+$/.test(part)) return part;
  }
  return k;
}
