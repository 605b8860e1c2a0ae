import { WEBMAIL } from './email-heuristics.ts';
import { ownerLabel } from './registrable-domain.ts';

// Mail providers (the free-mail ones the e-mail features know, and more): an address there says nothing about which
// site is the sender's own.
const MAIL_PROVIDERS = new Set([
  ...WEBMAIL,
  'bigpond',
  'bol',
  'btinternet',
  'comcast',
  'docomo',
  'eircom',
  'ezweb',
  'fastmail',
  'hanmail',
  'hey',
  'laposte',
  'mac',
  'mailbox',
  'nifty',
  'ocn',
  'onet',
  'posteo',
  'runbox',
  'sfr',
  'sina',
  'terra',
  'tiscali',
  'tutanota',
  'uol',
  'verizon',
  'virgilio',
]);

/** Whether `domain` (an address's domain) belongs to a mail provider rather than to the sender. */
export function isMailProvider(domain: string): boolean {
  return MAIL_PROVIDERS.has(ownerLabel(domain));
}
