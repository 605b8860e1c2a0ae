import type { FastifyRequest } from 'fastify';
import type { ReviewPolicy } from '../intake/policy.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { Moderator } from './auth.ts';

/** What the console's route files share: the store, the signed-in moderator, and the account's review settings. */
export interface ConsoleApi {
  readonly store: ReviewStore;
  readonly who: (request: FastifyRequest) => Moderator;
  /** The account's review band and sample rate (the tenants file's, else the service's). */
  readonly policyFor: (accountId: string) => ReviewPolicy;
  readonly keepFieldsDays: number;
  readonly maxFieldBytes: number;
  readonly now: () => number;
}
