import { describe, expect, it } from 'vitest';
import { roleOf } from '../../../core/features/roles.ts';

describe('field roles', () => {
  it('reads the role from the name when the name says it', () => {
    expect(roleOf('your-email', 'not an address')).toBe('email');
    expect(roleOf('form_fields[message]', 'ok')).toBe('message');
    expect(roleOf('_gotcha', '')).toBe('honeypot');
  });

  it('knows honeypots by their usual names, and a mobile number called hp is not one', () => {
    for (const key of ['hp_website', 'website_hp', 'nf-field-hp', 'honeypot', 'bot-field', 'fax_confirm'])
      expect(roleOf(key, 'x'), key).toBe('honeypot');
    // WPForms' honeypot, empty or filled by a bot.
    expect(roleOf('wpforms[hp]', '')).toBe('honeypot');
    expect(roleOf('wpforms[hp]', 'https://cheap-pills.top')).toBe('honeypot');
    // Korean (hp, mb_hp) and Indonesian or Malay (no_hp) forms name the mobile-phone field so.
    for (const [key, phone] of [
      ['hp', '010-4827-3916'],
      ['mb_hp', '010 4827 3916'],
      ['no_hp', '+62 812-3456-7890'],
      ['nomor_hp', '(0812) 345 678'],
    ]) {
      expect(roleOf(key as string, phone as string), key).toBe('other');
    }
  });

  it('does not take a field for a honeypot because "honey" or "trap" is part of its name', () => {
    // A honey shop's jar size made every order "a hidden honeypot field filled in" (spam at 1.00).
    for (const key of ['honey_jar_size', 'honey_type', 'strap_colour', 'trapeze_class']) expect(roleOf(key, 'x'), key).not.toBe('honeypot');
    for (const key of ['honey', 'honey_pot', 'honeypot-245', 'spam_trap', 'bot-trap', 'trap'])
      expect(roleOf(key, 'x'), key).toBe('honeypot');
  });

  it('judges opaque names (input_4, entry.N) by the value', () => {
    expect(roleOf('input_2', 'ada@mail.com')).toBe('email');
    expect(roleOf('input_3', 'https://shop.test/item/1')).toBe('url');
    expect(roleOf('input_4', 'Hello, could you send me a quote for twenty oak chairs?')).toBe('message');
    expect(roleOf('input_5', 'Berlin')).toBe('other');
  });

  it('takes a sentence in a script written without spaces for a message, not for a code', () => {
    expect(roleOf('entry.1598044210', '您好，我想定做一个和这个类似的书架，尺寸大概宽120高180，请问可以做吗？')).toBe('message');
    expect(roleOf('wpforms[fields][3]', 'ご注文の商品がまだ届いていません。確認していただけますか。')).toBe('message');
    expect(roleOf('nf-field-7', 'สวัสดีครับ ผมกดสั่งซื้อรองเท้าวิ่งแล้วขึ้นว่าชำระเงินไม่สำเร็จ')).toBe('message');
    // A name or a short answer in the same scripts stays "other".
    expect(roleOf('input_1', '山田太郎')).toBe('other');
    expect(roleOf('input_9', 'ABCD-1234-EFGH-5678-IJKL')).toBe('other');
  });
});
