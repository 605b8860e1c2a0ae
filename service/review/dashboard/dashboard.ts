import type { RedisClient } from '../../config/redis-target.ts';
import type { LabelRecord } from '../../../core/labels/records.ts';
import { reviewJobSchema } from '../intake/job-schema.ts';
import { parseJson, parseLabel } from '../store/context.ts';
import type { ReviewKeys } from '../store/keys.ts';
import { readTraffic, utcDay, zero, type DayTraffic, type TrafficEvent } from './traffic.ts';

const DAY_MS = 86_400_000;
/** Labels read for one dashboard (the newest of the period): bounds the read whatever the period holds. */
export const MAX_DASHBOARD_LABELS = 20_000;
const HISTOGRAM_BINS = 10;

export interface Estimate {
  /** Share in 0..1; null without labels to rest on. */
  readonly value: number | null;
  /** How many labels the estimate rests on. */
  readonly labels: number;
}

export interface FormSummary {
  readonly formId: string;
  readonly verified: number;
  readonly spam: number;
  readonly spamShare: number | null;
  readonly blocked: number;
  readonly rateLimited: number;
  /** Of the verdicts, those the account's block list (spam) and allow list (legitimate) decided. */
  readonly blockList: number;
  readonly allowList: number;
  /**
   * Of the `spam` verdicts moderators labelled one by one: the share they confirmed as spam. Bulk labels and
   * confirm-all mostly restate the model's own verdict, so they are left out (`precisionLeftOut` counts them, with
   * labels given before the way of labelling was recorded).
   */
  readonly precision: Estimate;
  readonly precisionLeftOut: number;
  /** Of the sampled confident `legitimate` verdicts moderators labelled: the share that was spam after all. */
  readonly missedSpam: Estimate;
  readonly labels: number;
}

export interface Dashboard {
  readonly from: string;
  readonly to: string;
  readonly days: DayTraffic[];
  readonly forms: FormSummary[];
  readonly total: FormSummary;
  /** Labelled items by the model's spam score (0..1 in ten bins), by label. */
  readonly histogram: { readonly edges: number[]; readonly spam: number[]; readonly legitimate: number[] };
  /** True when the period held more labels than were read. */
  readonly labelsCut: boolean;
}

interface Tally {
  precision: [number, number];
  leftOut: number;
  missed: [number, number];
  labels: number;
}

/**
 * What the filter did for an account over the last `days` UTC days (today included): traffic counts per form and
 * day, and the estimates moderators' labels give. `band` is the account's review band: a `legitimate` verdict at or
 * above it reached review only by the random sample, so those labels estimate the spam the model lets through.
 */
export async function dashboard(
  redis: RedisClient,
  keys: ReviewKeys,
  accountId: string,
  opts: { days: number; formId?: string | undefined; band: number; now: number },
): Promise<Dashboard> {
  const today = Date.parse(`${utcDay(opts.now)}T00:00:00Z`);
  const dayList = Array.from({ length: opts.days }, (_, i) => utcDay(today - (opts.days - 1 - i) * DAY_MS));
  const from = today - (opts.days - 1) * DAY_MS;
  const traffic = await readTraffic(redis, keys, accountId, dayList);
  const { labels, cut } = await periodLabels(redis, keys, accountId, from, opts.now);
  const reported = await reportedMisses(redis, keys, accountId, labels, opts.band);

  const tallies = new Map<string, Tally>();
  const total: Tally = { precision: [0, 0], leftOut: 0, missed: [0, 0], labels: 0 };
  const edges = Array.from({ length: HISTOGRAM_BINS + 1 }, (_, i) => i / HISTOGRAM_BINS);
  const histogram = { edges, spam: new Array<number>(HISTOGRAM_BINS).fill(0), legitimate: new Array<number>(HISTOGRAM_BINS).fill(0) };
  for (const l of labels) {
    if (opts.formId !== undefined && l.formId !== opts.formId) continue;
    const t = tallies.get(l.formId) ?? { precision: [0, 0], leftOut: 0, missed: [0, 0], labels: 0 };
    tallies.set(l.formId, t);
    for (const x of [t, total]) {
      x.labels++;
      if (l.modelStatus === 'spam' && l.how !== 'single') x.leftOut++;
      else if (l.modelStatus === 'spam') x.precision = [x.precision[0] + (l.label === 'spam' ? 1 : 0), x.precision[1] + 1];
      else if (l.modelConfidence >= opts.band && !reported.has(l.submissionId))
        x.missed = [x.missed[0] + (l.label === 'spam' ? 1 : 0), x.missed[1] + 1];
    }
    const score = l.modelStatus === 'spam' ? l.modelConfidence : 1 - l.modelConfidence;
    histogram[l.label][Math.min(HISTOGRAM_BINS - 1, Math.floor(score * HISTOGRAM_BINS))]!++;
  }

  const formIds = [...new Set([...traffic.byForm.keys(), ...tallies.keys()])]
    .filter((f) => opts.formId === undefined || f === opts.formId)
    .sort();
  const forms = formIds.map((formId) => summary(formId, traffic.byForm.get(formId) ?? zero(), tallies.get(formId)));
  const sum = zero();
  for (const f of formIds) for (const [e, n] of Object.entries(traffic.byForm.get(f) ?? zero())) sum[e as TrafficEvent] += n;
  const days = opts.formId === undefined ? traffic.byDay : traffic.dayOfForm(opts.formId);
  return {
    from: new Date(from).toISOString(),
    to: new Date(opts.now).toISOString(),
    days,
    forms,
    total: summary('(all forms)', sum, total),
    histogram,
    labelsCut: cut,
  };
}

function summary(formId: string, t: Record<TrafficEvent, number>, l: Tally | undefined): FormSummary {
  const verified = t.spam + t.legitimate;
  const est = ([hit, n]: [number, number]): Estimate => ({ value: n === 0 ? null : hit / n, labels: n });
  return {
    formId,
    verified,
    spam: t.spam,
    spamShare: verified === 0 ? null : t.spam / verified,
    blocked: t.blocked,
    rateLimited: t['rate-limited'],
    blockList: t['block-list'],
    allowList: t['allow-list'],
    precision: est(l?.precision ?? [0, 0]),
    precisionLeftOut: l?.leftOut ?? 0,
    missedSpam: est(l?.missed ?? [0, 0]),
    labels: l?.labels ?? 0,
  };
}

/** The labels given in the period (by labelledAt), newest first, at most MAX_DASHBOARD_LABELS. */
async function periodLabels(
  redis: RedisClient,
  keys: ReviewKeys,
  accountId: string,
  from: number,
  to: number,
): Promise<{ labels: LabelRecord[]; cut: boolean }> {
  const k = keys.forAccount(accountId);
  const ids = await redis.zrange(k.labelled(), String(to), String(from), 'BYSCORE', 'REV', 'LIMIT', 0, MAX_DASHBOARD_LABELS + 1);
  const cut = ids.length > MAX_DASHBOARD_LABELS;
  const labels: LabelRecord[] = [];
  const wanted = ids.slice(0, MAX_DASHBOARD_LABELS);
  for (let i = 0; i < wanted.length; i += 1000) {
    const raws = await redis.mget(...wanted.slice(i, i + 1000).map((id) => k.label(id)));
    for (const raw of raws) {
      const l = parseLabel(raw ?? null);
      if (l !== undefined) labels.push(l);
    }
  }
  return { labels, cut };
}

/** Misses moderators reported are no random sample: they stay out of the missed-spam estimate. */
async function reportedMisses(
  redis: RedisClient,
  keys: ReviewKeys,
  accountId: string,
  labels: LabelRecord[],
  band: number,
): Promise<Set<string>> {
  const k = keys.forAccount(accountId);
  const sampled = labels.filter((l) => l.modelStatus === 'legitimate' && l.modelConfidence >= band).map((l) => l.submissionId);
  const out = new Set<string>();
  for (let i = 0; i < sampled.length; i += 500) {
    const chunk = sampled.slice(i, i + 500);
    const raws = await redis.mget(...chunk.map((id) => k.item(id)));
    raws.forEach((raw, j) => {
      const item = raw === null || raw === undefined ? undefined : reviewJobSchema.safeParse(parseJson(raw)).data;
      if (item?.reported !== undefined) out.add(chunk[j]!);
    });
  }
  return out;
}
