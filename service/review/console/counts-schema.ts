import { z } from 'zod';

const count = z.number().int();

/** The counts the console's header shows, in every answer that carries them (one schema, so none drops a field). */
export const countsSchema = z
  .object({ pending: count, labelled: count, shed: count })
  .describe(
    'pending items (one per row), labelled items, and spam verdicts not queued because the queue was full and the model was surer of them than of every pending one (kept for look-up)',
  );
