import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LABEL_WEIGHTS, latestLabels, loadDataDir, loadJsonl } from '../../training/data/loaders.ts';

const SUBMISSION = '0b8f6a52-4c1e-4d8e-9a57-2f3c1d9e7b10';
const OTHER = '5d2c9f0e-8b7a-4e61-a3d4-7c6b5a4f3e21';
let dir = '';

function label(submissionId: string, label: 'spam' | 'legitimate', labelledAt: string, extra: object = {}): string {
  return JSON.stringify({ submissionId, formId: 'contact', label, fields: { message: `text of ${submissionId}` }, labelledAt, ...extra });
}

function withdrawal(submissionId: string, withdrawn: string, extra: object = {}): string {
  return JSON.stringify({ submissionId, withdrawn, withdrawnAt: '2026-11-23T08:00:00.000Z', ...extra });
}

function dataDir(files: Record<string, string[]>): string {
  dir = mkdtempSync(path.join(tmpdir(), 'formguard-labels-'));
  mkdirSync(path.join(dir, 'labels'));
  for (const [name, lines] of Object.entries(files)) writeFileSync(path.join(dir, 'labels', name), `${lines.join('\n')}\n`);
  return dir;
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("loadDataDir with moderators' labels", () => {
  it('trains on the newest label of a relabelled submission, even when an older file sorts later', () => {
    const { records } = loadDataDir(
      dataDir({
        '2026-11-20.jsonl': [
          label(SUBMISSION, 'legitimate', '2026-11-20T09:00:00.000Z', { modelStatus: 'spam', moderatorId: 'a', modelConfidence: 0.9 }),
        ],
        '2026-11-21.jsonl': [
          label(SUBMISSION, 'spam', '2026-11-22T10:00:00.000Z', { modelStatus: 'spam', moderatorId: 'b', modelConfidence: 0.9 }),
          label(OTHER, 'legitimate', '2026-11-21T08:00:00.000Z'),
        ],
        '2026-11-22.jsonl': [
          label(SUBMISSION, 'legitimate', '2026-11-21T11:00:00.000Z', { modelStatus: 'spam', moderatorId: 'a', modelConfidence: 0.9 }),
        ],
      }),
    );
    const mine = records.filter((r) => r.id === `label:${SUBMISSION}`);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.label).toBe('spam');
    // The newest label agrees with the model, so it weighs as a confirmation.
    expect(mine[0]?.weight).toBe(LABEL_WEIGHTS.confirms);
    // A minimal line (no model verdict, no moderator) is read as a confirmation too.
    expect(records.find((r) => r.id === `label:${OTHER}`)?.label).toBe('legitimate');
    expect(records).toHaveLength(2);
  });

  it('lets the later line win when two labels share a time', () => {
    const at = '2026-11-21T08:00:00.000Z';
    const { records } = loadDataDir(dataDir({ '2026-11-21.jsonl': [label(SUBMISSION, 'spam', at), label(SUBMISSION, 'legitimate', at)] }));
    expect(records.map((r) => r.label)).toEqual(['legitimate']);
  });
});

describe('loadDataDir with labels withdrawn by an undo after their export', () => {
  const first = '2026-11-20T09:00:00.000Z';
  const relabel = '2026-11-21T09:00:00.000Z';

  it('trains on the earlier label an undo of a relabel restored, not on the newer, undone line', () => {
    const loaded = loadDataDir(
      dataDir({
        '2026-11-20.jsonl': [label(SUBMISSION, 'spam', first, { moderatorId: 'alice' })],
        '2026-11-21.jsonl': [
          label(SUBMISSION, 'legitimate', relabel, { moderatorId: 'bob' }),
          withdrawal(SUBMISSION, relabel),
          label(OTHER, 'spam', relabel),
        ],
      }),
    );
    expect(loaded.records.filter((r) => r.id === `label:${SUBMISSION}`).map((r) => r.label)).toEqual(['spam']);
    expect(loaded.withdrawn).toBe(1);
    // The files still count every label line they hold.
    expect(loaded.files.map((f) => f.records)).toEqual([1, 2]);
  });

  it('trains on no label of an item whose only label was undone (back to pending)', () => {
    const { records } = loadDataDir(
      dataDir({ '2026-11-20.jsonl': [label(SUBMISSION, 'spam', first), label(OTHER, 'legitimate', first), withdrawal(SUBMISSION, first)] }),
    );
    expect(records.map((r) => r.id)).toEqual([`label:${OTHER}`]);
  });

  it('trains on a label made after the undo, and applies a withdrawal from another file than its label', () => {
    const { records } = loadDataDir(
      dataDir({
        '2026-11-20.jsonl': [label(SUBMISSION, 'spam', first)],
        '2026-11-22.jsonl': [label(SUBMISSION, 'legitimate', '2026-11-22T09:00:00.000Z')],
        'undone.jsonl': [withdrawal(SUBMISSION, first)],
      }),
    );
    expect(records.map((r) => r.label)).toEqual(['legitimate']);
  });

  it('ignores a withdrawal of a label the files do not hold, and matches the instant of a labelledAt with an offset', () => {
    const { records, withdrawn } = loadDataDir(
      dataDir({
        '2026-11-20.jsonl': [
          label(SUBMISSION, 'spam', '2026-11-20T10:00:00+01:00'),
          label(OTHER, 'legitimate', first),
          withdrawal(SUBMISSION, first), // 09:00Z is the instant 10:00+01:00 names
          withdrawal(OTHER, relabel),
          withdrawal('9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', first),
        ],
      }),
    );
    expect(records.map((r) => r.id)).toEqual([`label:${OTHER}`]);
    expect(withdrawn).toBe(1);
  });

  it('applies withdrawals in loadJsonl and latestLabels too (what npm run evaluate reads)', () => {
    const root = dataDir({
      'a.jsonl': [label(SUBMISSION, 'spam', first), label(SUBMISSION, 'legitimate', relabel), withdrawal(SUBMISSION, relabel)],
    });
    expect(latestLabels(loadJsonl(path.join(root, 'labels', 'a.jsonl'), 'labels')).map((r) => r.label)).toEqual(['spam']);
  });

  describe('by labelId: two labels of one submission in the same millisecond', () => {
    const ALICE = '3f0c2a1e-7b6d-4c5e-9f8a-1b2c3d4e5f60';
    const BOB = '8e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0';

    it('takes back the named label only, so the other label of that millisecond is trained on', () => {
      const { records, withdrawn } = loadDataDir(
        dataDir({
          '2026-11-20.jsonl': [
            label(SUBMISSION, 'spam', first, { labelId: ALICE, moderatorId: 'alice' }),
            label(SUBMISSION, 'legitimate', first, { labelId: BOB, moderatorId: 'bob' }),
            withdrawal(SUBMISSION, first, { labelId: BOB }),
          ],
        }),
      );
      expect(records.map((r) => [r.label, r.labelId])).toEqual([['spam', ALICE]]);
      expect(withdrawn).toBe(1);
    });

    it('takes back a line an older export wrote without a labelId, by its instant, and no named line of that instant', () => {
      const { records } = loadDataDir(
        dataDir({
          '2026-11-20.jsonl': [
            label(SUBMISSION, 'spam', first, { labelId: ALICE }),
            label(SUBMISSION, 'legitimate', first),
            withdrawal(SUBMISSION, first, { labelId: BOB }),
          ],
        }),
      );
      expect(records.map((r) => r.label)).toEqual(['spam']);
    });

    it('a withdrawal written before labels had ids still takes back every line of its instant', () => {
      const { records } = loadDataDir(
        dataDir({
          '2026-11-20.jsonl': [
            label(SUBMISSION, 'spam', first, { labelId: ALICE }),
            label(SUBMISSION, 'legitimate', first),
            label(OTHER, 'spam', first, { labelId: BOB }),
            withdrawal(SUBMISSION, first),
          ],
        }),
      );
      expect(records.map((r) => r.id)).toEqual([`label:${OTHER}`]);
    });

    it('ignores a labelId that names a label of another submission', () => {
      const { records } = loadDataDir(
        dataDir({
          '2026-11-20.jsonl': [label(SUBMISSION, 'spam', first, { labelId: ALICE }), withdrawal(OTHER, first, { labelId: ALICE })],
        }),
      );
      expect(records.map((r) => r.label)).toEqual(['spam']);
    });
  });
});
