import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ReviewSpool } from '../../service/review/spool.ts';
import { syncDir } from '../../service/review/sync-dir.ts';
import { fakeJob, silent, tempDir } from './helpers.ts';

// A power loss cannot be faked here; what can be checked is that the folder holding a new file (or a new folder) is
// fsync'd before the write is acknowledged. syncDir still does its work: the spy only records the calls.
vi.mock('../../service/review/sync-dir.ts', async (importOriginal) => {
  const real = await importOriginal<{ syncDir: typeof syncDir }>();
  return { ...real, syncDir: vi.fn(real.syncDir) };
});
const synced = vi.mocked(syncDir);

let tmp: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  synced.mockClear();
  tmp = await tempDir('durable');
  return () => tmp.remove();
});

describe('the spool', () => {
  it('fsyncs its folder when an append creates the active file, before the append resolves', async () => {
    const spool = new ReviewSpool(tmp.dir, 1 << 20, silent);
    expect(await spool.append(fakeJob())).toBe(true);
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
});
