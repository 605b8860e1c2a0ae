import { createHash, randomUUID } from 'node:crypto';
import type { ModeratorSource } from '../../../service/review/console/auth.ts';
import type { ReviewJob } from '../../../service/review/intake/job-schema.ts';

// Review-queue fixtures; helpers any test folder uses live in test/support/.

let sequence = 0;
/** A plain ReviewJob (a fake verdict: these tests are about the queue, not the model). */
export function fakeJob(over: Partial<ReviewJob> & { status?: 'spam' | 'legitimate'; confidence?: number } = {}): ReviewJob {
  const { status = 'spam', confidence = 0.95, ...rest } = over;
  sequence++;
  return {
    submissionId: randomUUID(),
    accountId: 'acme',
    formId: 'contact',
    receivedAt: new Date(Date.now() - 60_000 + sequence).toISOString(),
    origin: 'example.com',
    fields: { name: `Sender ${sequence}`, message: `Message number ${sequence}` },
    truncated: false,
    verdict: { status, confidence, reasoning: 'test verdict', modelVersion: 'test-1' },
    ...rest,
  };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A stand-in for the tenants store: moderators by token hash. */
export function moderators(
  list: { accountId: string; moderatorId: string; token: string }[],
): ModeratorSource & { set(l: typeof list): void } {
  const build = (l: typeof list) => new Map(l.map((m) => [sha256(m.token), { accountId: m.accountId, moderatorId: m.moderatorId }]));
  const source = { current: { moderators: build(list) }, set: (l: typeof list) => (source.current = { moderators: build(l) }) };
  return source;
}
