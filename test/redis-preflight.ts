// `npm test` runs this first, so a newcomer without Redis learns what to start in seconds, before typecheck and lint.
import { missingRedisLine, redisAnswers } from './redis-check.ts';

if (!(await redisAnswers())) {
  console.error(missingRedisLine());
  process.exit(1);
}
