import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { deleteKeys, REDIS_URL, testPrefix } from '../../../support/redis.ts';
import { fakeJob } from '../helpers.ts';

// Undo with several moderators on one item, against the real store scripts on the test Redis (own key prefix).
const prefix = testPrefix('undo');
const redis = new Redis(REDIS_URL);
let clock = Date.now();
// Every label gets its own labelledAt, a second after the one before.
const store = new ReviewStore(redis, { prefix, retentionDays: 30, now: () => (clock += 1000) });
const account = 'undo';

async function item(): Promise<string> {
  const job = fakeJob({ accountId: account });
  expect(await store.items.ingest(job)).toBe('stored');
  return job.submissionId;
}

async function pendingIds(): Promise<string[]> {
  return (await store.items.listPending(account, {}, 0, 500)).map((i) => i.submissionId);
}

beforeEach(async () => {
  await deleteKeys(redis, prefix);
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

describe('undo with several moderators', () => {
  it('undoing a relabel puts the earlier label back, with its moderator and time, and the item stays labelled', async () => {
    const x = await item();
    const alices = await store.labels.label(account, x, 'spam', 'alice');
    await store.labels.label(account, x, 'legitimate', 'mia');
    // The replaced label holds the submitted fields: it ends with the item's retention like the item does.
    const kept = await redis.pttl(store.keys.forAccount(account).labelHistory(x));
    expect(Math.abs(kept - (store.expiresAt(alices!.receivedAt) - Date.now()))).toBeLessThan(60_000);

    expect(await store.labels.undo(account, 'mia')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toEqual(alices);
    expect(await pendingIds()).not.toContain(x);
    expect(await store.items.counts(account)).toEqual({ pending: 0, labelled: 1, shed: 0 });
    // Alice's label was never exported, so it is the one the next export writes.
    expect((await store.exports.unexported(account)).map((u) => u.record)).toEqual([alices]);
    const ttl = await redis.pttl(store.keys.forAccount(account).label(x));
    expect(Math.abs(ttl - (store.expiresAt(alices!.receivedAt) - Date.now()))).toBeLessThan(60_000);
  });

  it('keeps an exported earlier label exported when the relabel over it is undone', async () => {
    const x = await item();
    await store.labels.label(account, x, 'spam', 'alice');
    await store.exports.acknowledgeExported(account, await store.exports.unexported(account));
    await store.labels.label(account, x, 'legitimate', 'mia');

    expect(await store.labels.undo(account, 'mia')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
    expect(await store.exports.unexported(account)).toEqual([]);
  });

  it('lets the earlier moderator undo her restored label afterwards, and only once', async () => {
    const x = await item();
    await store.labels.label(account, x, 'spam', 'alice');
    await store.labels.label(account, x, 'legitimate', 'mia');
    await store.labels.undo(account, 'mia');
    expect(await store.labels.getLabel(account, x)).toMatchObject({ label: 'spam', moderatorId: 'alice' });

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toBeUndefined();
    expect(await pendingIds()).toEqual([x]);
    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'nothing' });
    expect(await store.labels.undo(account, 'mia')).toEqual({ kind: 'nothing' });
  });

  it('refuses to undo a label someone has relabelled since, changes nothing, and goes on to the label before next time', async () => {
    const y = await item();
    const x = await item();
    const alicesY = await store.labels.label(account, y, 'spam', 'alice');
    await store.labels.label(account, x, 'spam', 'alice');
    const miasX = await store.labels.label(account, x, 'legitimate', 'mia');

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'relabelled', submissionId: x, by: 'mia' });
    expect(await store.labels.getLabel(account, x)).toEqual(miasX);
    expect(await store.labels.getLabel(account, y)).toEqual(alicesY);
    expect(await store.items.counts(account)).toEqual({ pending: 0, labelled: 2, shed: 0 });

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: y });
    expect(await pendingIds()).toEqual([y]);
    // Mia's label is still hers to undo, and Alice's replaced label comes back.
    expect(await store.labels.undo(account, 'mia')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
  });

  it('undoes a moderator’s own relabels one at a time', async () => {
    const x = await item();
    const first = await store.labels.label(account, x, 'spam', 'alice');
    await store.labels.label(account, x, 'legitimate', 'alice');

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toEqual(first);
    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toBeUndefined();
    expect(await pendingIds()).toEqual([x]);
  });

  it('still puts a first label’s item back in pending', async () => {
    const x = await item();
    await store.labels.label(account, x, 'spam', 'alice');
    expect(await pendingIds()).toEqual([]);

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: x });
    expect(await store.labels.getLabel(account, x)).toBeUndefined();
    expect(await pendingIds()).toEqual([x]);
    expect(await store.items.counts(account)).toEqual({ pending: 1, labelled: 0, shed: 0 });
    expect(await store.exports.unexported(account)).toEqual([]);
    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'nothing' });
  });
});

describe('undo of a label after its export', () => {
  const exportAll = async () => store.exports.acknowledgeExported(account, await store.exports.unexported(account));

  it('records the withdrawal of an exported label that goes back to pending, with the undone label’s time', async () => {
    const x = await item();
    const alices = await store.labels.label(account, x, 'spam', 'alice');
    await exportAll();
    expect(await store.exports.withdrawals(account)).toEqual([]);

    expect(await store.labels.undo(account, 'alice')).toEqual({ kind: 'undone', submissionId: x });
    const [w, ...rest] = await store.exports.withdrawals(account);
    expect(rest).toEqual([]);
    expect(w?.entry).toEqual({ submissionId: x, labelId: alices!.labelId, withdrawn: alices!.labelledAt, exported: true });
    expect(Date.parse(w!.withdrawnAt)).toBeGreaterThan(Date.parse(alices!.labelledAt));
    // Nothing new to export but the withdrawal: the item is pending, its label gone.
    expect(await store.exports.unexported(account)).toEqual([]);
    expect(await store.exports.acknowledgeWithdrawals(account, [w!.member])).toBe(1);
    expect(await store.exports.withdrawals(account)).toEqual([]);
  });

  it('records the withdrawal of an exported relabel whose undo restores the earlier label', async () => {
    const x = await item();
    await store.labels.label(account, x, 'spam', 'alice');
    await exportAll();
    const mias = await store.labels.label(account, x, 'legitimate', 'mia');
    await exportAll();

    await store.labels.undo(account, 'mia');
    expect((await store.exports.withdrawals(account)).map((w) => w.entry)).toEqual([
      { submissionId: x, labelId: mias!.labelId, withdrawn: mias!.labelledAt, exported: true },
    ]);
    expect(await store.labels.getLabel(account, x)).toMatchObject({ label: 'spam', moderatorId: 'alice' });
  });

  it('records an undone label that was never acknowledged as not exported (the export writes no line for it)', async () => {
    const x = await item();
    const alices = await store.labels.label(account, x, 'spam', 'alice');
    await store.labels.undo(account, 'alice');
    expect((await store.exports.withdrawals(account)).map((w) => w.entry)).toEqual([
      { submissionId: x, labelId: alices!.labelId, withdrawn: alices!.labelledAt, exported: false },
    ]);
  });

  it('records nothing for an undo that is refused', async () => {
    const x = await item();
    await store.labels.label(account, x, 'spam', 'alice');
    await exportAll();
    await store.labels.label(account, x, 'legitimate', 'mia');
    expect(await store.labels.undo(account, 'alice')).toMatchObject({ kind: 'relabelled' });
    expect(await store.exports.withdrawals(account)).toEqual([]);
  });
});
