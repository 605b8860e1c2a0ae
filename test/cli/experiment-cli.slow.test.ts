import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.ts';

const experiment = (...args: string[]) => cli('cli/experiment.ts', args);

describe('npm run experiment refuses what it cannot do', () => {
  it('an --only naming no site exits 2 before training anything, listing the valid names', async () => {
    const r = await experiment('lodo', '--only', 'nosuch');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^experiment: no site matches "nosuch"; --only takes \(part of\) one of: video: KatyPerry; .*SMS; layouts: WordPress plugins; .*holdout$/,
    );
    expect(r.stdout).not.toMatch(/Infinity|0 sites/);
  }, 60_000);

  it('--help lists every subcommand and the site names', async () => {
    const r = await experiment('--help');
    expect(r.code).toBe(0);
    for (const sub of ['lodo', 'report', 'corrections']) expect(r.stdout).toContain(`npm run experiment -- ${sub}`);
    expect(r.stdout).toContain('"layouts: CRM and CMS"');
  }, 60_000);
});
