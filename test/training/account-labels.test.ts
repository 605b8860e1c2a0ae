import { describe, expect, it } from 'vitest';
import { applyAccountLabelPolicy } from '../../training/data/account-labels.ts';
import type { LabelledRecord } from '../../training/data/record.ts';

let n = 0;
const label = (accountId: string | undefined, text: string, l: 'spam' | 'legitimate', at = n): LabelledRecord => ({
  id: `label:${++n}`,
  source: 'labels',
  label: l,
  fields: { message: text },
  weight: 1,
  labelledAt: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString(),
  ...(accountId === undefined ? {} : { accountId }),
});
const texts = (rs: readonly LabelledRecord[]) => rs.map((r) => `${r.fields.message}:${r.label}`).sort();

describe('which account labels the global model learns from', () => {
  it('keeps every record without an account, as before', () => {
    const old = label(undefined, 'old line', 'spam');
    const p = applyAccountLabelPolicy([old]);
    expect(p.global).toEqual([old]);
    expect(p.byAccount.size).toBe(0);
  });

  it("keeps one account's labels out of the global model, for its correction only", () => {
    const p = applyAccountLabelPolicy([label('a', 'buy now', 'spam'), label('a', 'hello', 'legitimate')]);
    expect(p.global).toEqual([]);
    expect(p.byAccount.get('a')).toHaveLength(2);
    expect(p).toMatchObject({ agreed: 0, heldBack: 2, disputed: 0 });
  });

  it('lets a text in once when two accounts label it alike', () => {
    const p = applyAccountLabelPolicy([label('a', 'Buy now!', 'spam'), label('b', 'buy now', 'spam'), label('b', 'only b', 'spam')]);
    expect(texts(p.global)).toEqual(['buy now:spam']);
    expect(p).toMatchObject({ agreed: 2, heldBack: 1 });
  });

  it('keeps out a text accounts label both ways, and everything two such accounts agree on elsewhere', () => {
    const p = applyAccountLabelPolicy([
      label('a', 'my channel', 'spam'),
      label('b', 'my channel', 'legitimate'),
      label('a', 'nice song', 'legitimate'),
      label('b', 'nice song', 'legitimate'),
      // A third account that contradicts neither vouches for each.
      label('c', 'nice song', 'legitimate'),
    ]);
    expect(texts(p.global)).toEqual(['nice song:legitimate']);
    expect(p).toMatchObject({ agreed: 3, disputed: 2, heldBack: 2 });
    expect(
      texts(
        applyAccountLabelPolicy([
          label('a', 'x y', 'spam'),
          label('b', 'x y', 'legitimate'),
          label('a', 'z', 'legitimate'),
          label('b', 'z', 'legitimate'),
        ]).global,
      ),
    ).toEqual([]);
  });

  it("counts an account's newest word on a text, so a relabel is no dispute", () => {
    const p = applyAccountLabelPolicy([
      label('a', 'offer', 'spam', 1),
      label('a', 'offer', 'legitimate', 2),
      label('b', 'offer', 'legitimate', 3),
    ]);
    expect(texts(p.global)).toEqual(['offer:legitimate']);
    expect(p.disputed).toBe(0);
  });
});
