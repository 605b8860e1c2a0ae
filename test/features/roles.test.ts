import { describe, expect, it } from 'vitest';
import { roleOf } from '../../service/features/roles.ts';

describe('field roles', () => {
  it('reads the role from the name when the name says it', () => {
    expect(roleOf('your-email', 'not an address')).toBe('email');
    expect(roleOf('form_fields[message]', 'ok')).toBe('message');
    expect(roleOf('_gotcha', '')).toBe('honeypot');
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
