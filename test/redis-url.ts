/** The Redis every integration test uses: TEST_REDIS_URL, or the local one. Suites keep to key prefixes of their own. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
