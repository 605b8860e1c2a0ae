import { z } from 'zod';
import { referrerEntryProblem } from '../origin/matcher.ts';

const sha256Hex = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be the hex SHA-256 of the key (64 hex digits)');
const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, 'may hold letters, digits and . _ : - only');

// Strict objects: a typo such as "allowedReferers" must stop start-up, not silently drop a rule.
export const credentialSchema = z.strictObject({
  id,
  sha256: sha256Hex,
  createdAt: z.string().datetime().optional(),
});

export const rateLimitSchema = z.strictObject({
  max: z.number().int().min(1),
  windowSeconds: z.number().int().min(1).max(86_400),
  algorithm: z.enum(['fixed', 'sliding']).optional(),
});

export const formSchema = z.strictObject({
  id,
  name: z.string().optional(),
  allowedReferrers: z.array(
    // The matcher's own reason, naming the entry: an IP literal the URL parser cannot read is refused here too.
    z.string().superRefine((entry, ctx) => {
      const problem = referrerEntryProblem(entry);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
});

/** The account's own review settings; each one left out takes the service's (REVIEW_BAND, REVIEW_SAMPLE_RATE, REVIEW_KEEP_FIELDS_MAX). */
export const reviewSettingsSchema = z.strictObject({
  band: z.number().min(0).max(1).optional(),
  sampleRate: z.number().min(0).max(1).optional(),
  /** Most submissions not queued whose fields are kept for reporting a miss (the newest); 0 keeps none. */
  keepFieldsMax: z.number().int().min(0).optional(),
});

export const accountSchema = z.strictObject({
  id,
  name: z.string().optional(),
  apiKeys: z.array(credentialSchema),
  rateLimit: rateLimitSchema.optional(),
  forms: z.array(formSchema),
  /** Review-console sign-in tokens, stored as hashes like API keys. */
  moderators: z.array(credentialSchema).optional(),
  /** e.g. a form with a known problem sends more to review: a higher band, a higher sample rate. */
  review: reviewSettingsSchema.optional(),
});

export const tenantsFileSchema = z.strictObject({
  accounts: z.array(accountSchema),
});

export type TenantsFile = z.infer<typeof tenantsFileSchema>;
export type RateLimitRecord = z.infer<typeof rateLimitSchema>;

/** Applies when an account has no rateLimit: generous for a contact form, low enough to stop a flood. */
export const DEFAULT_RATE_LIMIT = Object.freeze({ max: 600, windowSeconds: 60, algorithm: 'sliding' as const });
