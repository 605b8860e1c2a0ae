import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { exportLabels } from '../../../../cli/lib/label-files/export-labels.ts';
import { ReviewSpool } from '../../../../service/review/intake/spool.ts';
import { ReviewStore } from '../../../../service/review/store/review-store.ts';
import { syncDir } from '../../../../core/fs/sync-dir.ts';
import { useTestRedis } from '../../../support/redis.ts';
import { fakeJob } from '../../../service/review/helpers.ts';
import { silent } from '../../../support/logs.ts';
import { tempDir } from '../../../support/temp-dir.ts';

// A power loss cannot be faked here; what can be checked is that the folder holding a new file (or a new folder) is
// fsync'd before the write is acknowledged. syncDir still does its work: the spy only records the calls.
vi.mock('../../../../core/fs/sync-dir.ts', async (importOriginal) => {
  const real = await importOriginal<{ syncDir: typeof syncDir }>();
  return { ...real, syncDir: vi.fn(real.syncDir) };
});
const synced = vi.mocked(syncDir);

const keys = useTestRedis('durable');
let tmp: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  synced.mockClear();
  tmp = await tempDir('durable');
  return () => tmp.remove();
});

describe('the spool', () => {
  it('fsyncs its folder when an append creates the active file, before the append resolves', async () => {
    const spool = new ReviewSpool(tmp.dir, 1 << 20, silent);
    expect(await spool.append(fakeJob())).toEqual({ ok: true });
    expect(synced).toHaveBeenCalledWith(tmp.dir);

    // An append to a file that already exists adds no name to the folder.
    synced.mockClear();
    await spool.append(fakeJob());
    expect(synced).not.toHaveBeenCalled();

    // A drain moved the active file aside: the next append creates a new one.
    await spool.drain(async () => undefined);
    synced.mockClear();
    await spool.append(fakeJob());
    expect(synced).toHaveBeenCalledWith(tmp.dir);
  });
  it('fsyncs the parent of each folder it creates for itself', async () => {
    const dir = path.join(tmp.dir, 'state', 'spool');
    await new ReviewSpool(dir, 1 << 20, silent).append(fakeJob());
    expect(synced.mock.calls.map(([d]) => d)).toEqual([path.join(tmp.dir, 'state'), tmp.dir, dir]);
  });
});

describe('labels:export', () => {
  /** Exports one fresh label into `labelsDir` and expects `tmp.dir` fsync'd before the label is acknowledged. */
  async function expectSyncedBeforeAcknowledged(labelsDir: string): Promise<void> {
    const store = new ReviewStore(keys.redis, { prefix: keys.prefix(), retentionDays: 30 });
    const job = fakeJob({ accountId: 'acme' });
    await store.items.ingest(job);
    await store.labels.label('acme', job.submissionId, 'spam', 'alice');
    const acknowledge = vi.spyOn(store.exports, 'acknowledgeExported');

    expect((await exportLabels(store.exports, labelsDir)).written).toBe(1);
    const dirSync = synced.mock.calls.findIndex(([d]) => d === tmp.dir);
    expect(dirSync).toBeGreaterThanOrEqual(0);
    expect(synced.mock.invocationCallOrder[dirSync]).toBeLessThan(acknowledge.mock.invocationCallOrder[0] ?? 0);
  }

  it('fsyncs the labels folder when it creates a file, before it acknowledges the labels in it', async () => {
    await expectSyncedBeforeAcknowledged(tmp.dir);
  });

  it('fsyncs the parent of a labels folder it creates, before acknowledging', async () => {
    await expectSyncedBeforeAcknowledged(path.join(tmp.dir, 'labels'));
  });
});
