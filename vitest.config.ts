import { configDefaults, defineConfig } from 'vitest/config';

// Four tiers, told apart by file name: *.browser.test.ts drive Chromium (and Redis), *.redis.test.ts need Redis,
// *.slow.test.ts start processes (the service, the commands, a packed client) or train or score every labelled record,
// every other test file is the unit tier (`npm run test:unit`), whose setup refuses Redis and browsers so a file that
// needs them cannot land there unnoticed. `vitest run` (in `npm test`) runs all four.
const REDIS = '**/*.redis.test.ts';
const BROWSER = '**/*.browser.test.ts';
const SLOW = '**/*.slow.test.ts';
// The client package keeps its own tests beside it (clients/js/test), run with everything else.
const ALL = ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Redis-backed suites use their own DB numbers / prefixes, so files may run in parallel.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: [...configDefaults.exclude, REDIS, BROWSER, SLOW],
          setupFiles: ['test/support/unit-tier-guard.ts'],
        },
      },
      // No Redis either (the same guard), but processes and training runs: minutes, not seconds.
      {
        extends: true,
        test: { name: 'slow', include: [SLOW], setupFiles: ['test/support/unit-tier-guard.ts'] },
      },
      // Stops the run at once, with one line, when the selected files need Redis and none answers at TEST_REDIS_URL.
      { extends: true, test: { name: 'redis', include: [REDIS], globalSetup: ['test/redis-check.ts'] } },
      { extends: true, test: { name: 'browser', include: [BROWSER], globalSetup: ['test/redis-check.ts'] } },
    ],
  },
});
