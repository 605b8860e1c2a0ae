import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The client package keeps its own tests beside it (clients/js/test), run with everything else.
    include: ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Redis-backed suites use their own DB numbers / prefixes, so files may run in parallel.
    pool: 'forks',
    // Stops the run at once, with one line, when the selected files need Redis and none answers at TEST_REDIS_URL.
    globalSetup: ['test/redis-check.ts'],
  },
});
