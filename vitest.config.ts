import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Redis-backed suites use their own DB numbers / prefixes, so files may run in parallel.
    pool: 'forks',
  },
});
