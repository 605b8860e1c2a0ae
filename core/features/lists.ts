// Top-level domains that mark a bare word.word as a link even without http:// or www.
// Two-letter words that end sentences ("it", "in", "is", "to", "me", "at") are left out on purpose.
export const LINK_TLDS = new Set([
  'com', 'net', 'org', 'info', 'biz', 'xyz', 'top', 'site', 'online', 'shop', 'store', 'club', 'vip', 'icu', 'pro',
  'app', 'dev', 'io', 'co', 'uk', 'de', 'fr', 'es', 'nl', 'pl', 'ru', 'su', 'ua', 'br', 'cn', 'jp', 'kr', 'vn',
  'us', 'ca', 'au', 'ly', 'gl', 'gd', 'tk', 'ml', 'ga', 'cf', 'gq', 'live', 'life', 'link', 'click', 'win', 'bid',
  'loan', 'work', 'today', 'space', 'website', 'tech', 'ai', 'eu', 'ch', 'at', 'be', 'se', 'tv', 'cc', 'ws', 'pw',
  'buzz', 'fun', 'monster', 'rest', 'cyou', 'sbs', 'cfd', 'quest', 'bond', 'mobi', 'name', 'asia', 'in',
]);

export const URL_SHORTENERS = new Set([
  'bit.ly', 'tinyurl.com', 'goo.gl', 't.co', 'cutt.ly', 'is.gd', 'ow.ly', 'rb.gy', 'shorturl.at', 'tiny.cc',
  'buff.ly', 'rebrand.ly', 'bl.ink', 'shorte.st', 'adf.ly', 'v.gd', 'clck.ru', 'u.to', 'qps.ru', 'tr.ee', 's.id',
]);

// Disposable-mail providers; a contact-form reply to them never arrives, which bots do not mind.
export const DISPOSABLE_EMAIL_DOMAINS = new Set([
  'mailinator.com', 'yopmail.com', 'guerrillamail.com', 'guerrillamail.net', 'sharklasers.com', 'grr.la',
  'temp-mail.org', 'tempmail.com', 'tempmail.net', '10minutemail.com', '10minutemail.net', 'trashmail.com',
  'trashmail.de', 'getnada.com', 'dispostable.com', 'maildrop.cc', 'mailnesia.com', 'mohmal.com', 'emailondeck.com',
  'throwawaymail.com', 'fakeinbox.com', 'tempr.email', 'discard.email', 'spamgourmet.com', 'mintemail.com',
  'mytemp.email', 'tempinbox.com', 'burnermail.io', 'mail.tm', 'temp-mail.io', 'moakt.com', 'inboxkitten.com',
  'yopmail.net', 'yopmail.fr', 'mailcatch.com', 'spambox.us', 'mvrht.net', 'armyspy.com', 'cuvox.de', 'dayrep.com',
  'einrot.com', 'fleckens.hu', 'gustr.com', 'jourrapide.com', 'rhyta.com', 'superrito.com', 'teleworm.us',
]);
