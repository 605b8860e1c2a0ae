import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { reviewJobSchema, type ReviewJob } from './job-schema.ts';
import { ReviewKeys, type AccountKeys } from './keys.ts';
import { labelRecordSchema, labelWithdrawalSchema, type Label, type LabelRecord } from '../../core/labels/records.ts';

const DAY_MS = 86_400_000;

// Creates the item once (SET NX: a submission is stored once for the whole retention) and indexes it as pending.
const INGEST = `
if tonumber(ARGV[3]) <= tonumber(ARGV[6]) then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) then return 0 end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4]) end
redis.call('SADD', KEYS[6], ARGV[5])
return 1`;

// Stores a label (a relabel replaces it, keeping the replaced one for undo), moves the item from pending to
// labelled, and remembers this label (not just the item) for undo, so each of a moderator's labels is undone in turn.
// ARGV[7] is what the moderator saw: '' (no check), '-' (no label yet), or the label on screen by its labelId (by
// its labelledAt for a label without one, or from a page loaded before labels had ids); when the item's label is no
// longer that, nothing changes and {-1, current label or ''} comes back. A labelId tells apart two labels made in the
// same millisecond, which a labelledAt cannot.
const LABEL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local previous = redis.call('GET', KEYS[2])
if ARGV[7] ~= '' then
  local same = ARGV[7] == '-'
  if previous then
    local p = cjson.decode(previous)
    same = ARGV[7] == p.labelId or ARGV[7] == p.labelledAt
  end
  if not same then return {-1, previous or ''} end
end
if previous then
  local at = redis.call('ZSCORE', KEYS[7], ARGV[4]) or ARGV[2]
  local unexported = redis.call('ZSCORE', KEYS[8], ARGV[4]) ~= false
  redis.call('LPUSH', KEYS[10], cjson.encode({ label = previous, at = at, unexported = unexported }))
  redis.call('LTRIM', KEYS[10], 0, 99)
  redis.call('PEXPIREAT', KEYS[10], ARGV[3])
else
  redis.call('DEL', KEYS[10])
end
redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[3])
for i = 3, 6 do redis.call('ZREM', KEYS[i], ARGV[4]) end
redis.call('ZADD', KEYS[7], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[8], ARGV[2], ARGV[4])
redis.call('LPUSH', KEYS[9], ARGV[6])
redis.call('LTRIM', KEYS[9], 0, 99)
redis.call('PEXPIRE', KEYS[9], ARGV[5])
return 1`;

// Takes back this moderator's newest label, only while it is still the item's label: the label it replaced comes
// back (with its moderator, time and export state), or, for a first label, the item goes back to pending.
// The undone label is recorded as withdrawn (KEYS[11], scored by ARGV[7], now), so the next export can take back its
// line if one was written. exported: acknowledged by an export (no longer in unexported). A label still unexported
// is recorded too: an export may have written its line and not yet acknowledged it (or crashed in between), and
// only the files can tell; the export writes no line for it unless its label line is there.
// Returns {1} back to pending, {2} earlier label restored, {-1, moderator} relabelled since by that moderator,
// {0} raced with another label of this moderator, {-2} item expired, {-3} label already gone.
const UNDO = `
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return {0} end
redis.call('LPOP', KEYS[1])
if redis.call('EXISTS', KEYS[9]) == 0 then
  redis.call('DEL', KEYS[2], KEYS[10])
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[2])
  return {-2}
end
local current = redis.call('GET', KEYS[2])
if not current then return {-3} end
local label = cjson.decode(current)
if label.moderatorId ~= ARGV[4] or (ARGV[5] ~= '' and label.labelledAt ~= ARGV[5]) then return {-1, label.moderatorId} end
local exported = redis.call('ZSCORE', KEYS[4], ARGV[2]) == false
redis.call('ZADD', KEYS[11], ARGV[7], cjson.encode({ submissionId = ARGV[2], labelId = label.labelId, withdrawn = label.labelledAt, exported = exported }))
local previous = redis.call('LPOP', KEYS[10])
if previous then
  local p = cjson.decode(previous)
  redis.call('SET', KEYS[2], p.label, 'PXAT', ARGV[6])
  redis.call('ZADD', KEYS[3], p.at, ARGV[2])
  if p.unexported then redis.call('ZADD', KEYS[4], p.at, ARGV[2]) else redis.call('ZREM', KEYS[4], ARGV[2]) end
  return {2}
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
for i = 5, 8 do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2]) end
return {1}`;

// Forgets exported labels, unless relabelled meanwhile: then the score (labelledAt) changed, or, for a relabel in the
// same millisecond, the item's label is another one (its labelId). ARGV: submissionId, score, labelId ('' for a label
// without one) per label; KEYS[1 + n]: the n-th label's key.
const ACK = `
local n = 0
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  local same = score and tonumber(score) == tonumber(ARGV[i + 1])
  if same and ARGV[i + 2] ~= '' then
    local current = redis.call('GET', KEYS[1 + (i + 2) / 3])
    same = current and cjson.decode(current).labelId == ARGV[i + 2]
  end
  if same then
    redis.call('ZREM', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n`;

// Erases one submission of one account: its item, label, the labels its relabels replaced, its look-up verdict, and its
// entries in the indexes (KEYS[5..n-1]) and in the withdrawals index (KEYS[n], members ARGV[3..]). The item key is
// left as a tombstone ARGV[2] until the item would have expired, so a spool replay or a re-added job of the same
// submission is still refused as a duplicate (SET NX) instead of bringing it back.
const ERASE = `
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) end
for i = 5, #KEYS - 1 do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = 3, #ARGV do redis.call('ZREM', KEYS[#KEYS], ARGV[i]) end
return 1`;

/** What an erased item key holds until it expires: valid JSON that is no item, so reads skip it. */
const ERASED = JSON.stringify({ erased: true });

export type IngestResult = 'stored' | 'duplicate' | 'expired';

/** What the store held of a submission that was erased (per account; one submissionId belongs to one account). */
export interface ErasedSubmission {
  readonly submissionId: string;
  readonly accountId: string;
  /** The queued item (with its fields) was there. */
  readonly item: boolean;
  /** It had a label (exported or not). */
  readonly label: boolean;
  /** The verdict of an unqueued submission was kept for look-ups. */
  readonly lookup: boolean;
}

/** What the store held of an erased account: its items, their labels, and every other key of the account. */
export interface ErasedAccount {
  readonly items: number;
  readonly labels: number;
  readonly keys: number;
}

/** A label waiting for the export: `score` (its labelledAt in ms) and `record.labelId` acknowledge it. */
export interface UnexportedLabel {
  readonly submissionId: string;
  readonly score: string;
  /** Undefined once past retention (the label expired before it was exported). */
  readonly record: LabelRecord | undefined;
}

/**
 * A label refused because the item's label changed since the moderator saw it (another moderator labelled,
 * relabelled or undid it meanwhile): `current` is the item's label now, undefined when it has none.
 */
export class LabelConflictError extends Error {
  override name = 'LabelConflictError';
  constructor(readonly current: LabelRecord | undefined) {
    super(current === undefined ? 'The item is no longer labelled' : `The item is already labelled ${current.label} by ${current.moderatorId}`);
  }
}
export type UndoResult =
  | { readonly kind: 'undone'; readonly submissionId: string }
  /** Refused: the moderator's newest label was relabelled since (by `by`); it is dropped, the next undo goes further back. */
  | { readonly kind: 'relabelled'; readonly submissionId: string; readonly by: string }
  | { readonly kind: 'nothing' };

/**
 * An undone label as the withdrawals index holds it (the time of the undo is the score). `exported`: the label had
 * been acknowledged by an export, so its line is in the files; otherwise it may be (written, not yet acknowledged).
 */
export const withdrawalEntrySchema = labelWithdrawalSchema.pick({ submissionId: true, labelId: true, withdrawn: true }).extend({ exported: z.boolean() });
export type WithdrawalEntry = z.infer<typeof withdrawalEntrySchema>;

/** A withdrawal waiting for the export; entry undefined for a member that does not parse (it is acknowledged as is). */
export interface PendingWithdrawal {
  readonly member: string;
  readonly entry: WithdrawalEntry | undefined;
  readonly withdrawnAt: string;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function parseLabel(raw: string | null): LabelRecord | undefined {
  if (raw === null || raw === '') return undefined;
  const parsed = labelRecordSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : undefined;
}

/** An undo-list entry names one label: the item and that label's labelledAt (older entries hold the id only). */
function undoEntry(submissionId: string, labelledAt: string): string {
  return `${submissionId} ${labelledAt}`;
}

function parseUndoEntry(entry: string): { submissionId: string; labelledAt: string } {
  const space = entry.indexOf(' ');
  return space < 0 ? { submissionId: entry, labelledAt: '' } : { submissionId: entry.slice(0, space), labelledAt: entry.slice(space + 1) };
}

export interface ListFilter {
  readonly formId?: string | undefined;
  readonly status?: Label | undefined;
}

export interface ReviewEntry {
  readonly item: ReviewJob;
  readonly label: LabelRecord | undefined;
  /** False for a submission that was not queued: only its verdict is kept (no fields), for support look-ups. */
  readonly queued: boolean;
}

/** How long the verdict of an unqueued submission stays available to look-ups (capped by retention). */
export const LOOKUP_DAYS = 7;

export interface ReviewCounts {
  readonly pending: number;
  readonly labelled: number;
}

/**
 * The review items, their labels and the indexes the console reads, all in Redis. Every method takes the
 * account id and touches only that account's keys (see keys.ts), so accounts are kept apart by construction.
 */
export class ReviewStore {
  readonly keys: ReviewKeys;
  readonly retentionMs: number;
  readonly #redis: Redis;
  readonly #now: () => number;

  constructor(redis: Redis, opts: { prefix: string; retentionDays: number; now?: () => number }) {
    this.#redis = redis;
    this.keys = new ReviewKeys(opts.prefix);
    this.retentionMs = Math.round(opts.retentionDays * DAY_MS);
    this.#now = opts.now ?? Date.now;
  }

  /** Items (and their labels) expire this long after the submission was received, reviewed or not. */
  expiresAt(receivedAt: string): number {
    return Date.parse(receivedAt) + this.retentionMs;
  }

  async ingest(job: ReviewJob): Promise<IngestResult> {
    const k = this.keys.forAccount(job.accountId);
    await this.#redis.sadd(this.keys.accounts(), job.accountId);
    const r = await this.#redis.eval(
      INGEST,
      6,
      k.item(job.submissionId),
      ...k.pendingAll(job.formId, job.verdict.status),
      k.forms(),
      JSON.stringify(job),
      Date.parse(job.receivedAt),
      this.expiresAt(job.receivedAt),
      job.submissionId,
      job.formId,
      this.#now(),
    );
    return r === 1 ? 'stored' : r === 0 ? 'duplicate' : 'expired';
  }

  /** Pending items, oldest first. */
  async listPending(accountId: string, filter: ListFilter = {}, offset = 0, limit = 50): Promise<ReviewJob[]> {
    const k = this.keys.forAccount(accountId);
    const index = k.pending(filter);
    const ids = await this.#redis.zrange(index, String(offset), String(offset + limit - 1));
    const items = await this.#items(k, ids);
    const gone = ids.filter((_, i) => items[i] === undefined);
    if (gone.length > 0) await this.#redis.zrem(index, ...gone);
    return items.filter((x): x is ReviewJob => x !== undefined);
  }

  async counts(accountId: string, filter: ListFilter = {}): Promise<ReviewCounts> {
    const k = this.keys.forAccount(accountId);
    const [pending, labelled] = await Promise.all([this.#redis.zcard(k.pending(filter)), this.#redis.zcard(k.labelled())]);
    return { pending, labelled };
  }

  async forms(accountId: string): Promise<string[]> {
    return (await this.#redis.smembers(this.keys.forAccount(accountId).forms())).sort();
  }

  /** Any stored submission of this account (pending or labelled, within retention). */
  /** Any recent submission of this account: queued ones with fields and label, others by their verdict only. */
  async get(accountId: string, submissionId: string): Promise<ReviewEntry | undefined> {
    const k = this.keys.forAccount(accountId);
    const [item] = await this.#items(k, [submissionId]);
    if (item !== undefined) return { item, label: await this.getLabel(accountId, submissionId), queued: true };
    const raw = await this.#redis.get(k.seen(submissionId));
    if (raw === null) return undefined;
    const parsed = reviewJobSchema.safeParse(JSON.parse(raw));
    return parsed.success ? { item: parsed.data, label: undefined, queued: false } : undefined;
  }

  /** Keeps the verdict of a submission that was not queued (fields dropped: nothing personal is kept for it). */
  async remember(job: ReviewJob): Promise<void> {
    const ttl = Math.min(this.retentionMs, LOOKUP_DAYS * DAY_MS);
    const expireAt = Date.parse(job.receivedAt) + ttl;
    if (expireAt <= this.#now()) return;
    const { cutFields: _, ...verdict } = job;
    const seen: ReviewJob = { ...verdict, fields: {}, truncated: false, origin: job.origin };
    await this.#redis.set(this.keys.forAccount(job.accountId).seen(job.submissionId), JSON.stringify(seen), 'PXAT', expireAt, 'NX');
  }

  async getLabel(accountId: string, submissionId: string): Promise<LabelRecord | undefined> {
    return parseLabel(await this.#redis.get(this.keys.forAccount(accountId).label(submissionId)));
  }

  /**
   * Labels an item (or relabels it); undefined when the item is unknown to this account or expired.
   * `expected` is the label the moderator saw: null for none (a pending item), or that label's labelId (its
   * labelledAt where it has none, which cannot tell it from a label of the same millisecond). When
   * given and the item's label is no longer that one, nothing changes and LabelConflictError says what it is now,
   * so two moderators on the same item never overwrite each other unseen. Omitted: no check (the CLI).
   */
  async label(
    accountId: string,
    submissionId: string,
    label: Label,
    moderatorId: string,
    opts: { expected?: string | null } = {},
  ): Promise<LabelRecord | undefined> {
    const entry = await this.get(accountId, submissionId);
    if (entry === undefined || !entry.queued) return undefined;
    const { item } = entry;
    const labelledAtMs = this.#now();
    const record: LabelRecord = {
      labelId: randomUUID(),
      submissionId,
      accountId,
      formId: item.formId,
      label,
      fields: item.fields,
      truncated: item.truncated,
      receivedAt: item.receivedAt,
      labelledAt: new Date(labelledAtMs).toISOString(),
      moderatorId,
      modelStatus: item.verdict.status,
      modelConfidence: item.verdict.confidence,
      modelVersion: item.verdict.modelVersion,
    };
    const k = this.keys.forAccount(accountId);
    const r = await this.#redis.eval(
      LABEL,
      10,
      k.item(submissionId),
      k.label(submissionId),
      ...k.pendingAll(item.formId, item.verdict.status),
      k.labelled(),
      k.unexported(),
      k.undo(moderatorId),
      k.labelHistory(submissionId),
      JSON.stringify(record),
      labelledAtMs,
      this.expiresAt(item.receivedAt),
      submissionId,
      DAY_MS,
      undoEntry(submissionId, record.labelledAt),
      opts.expected === undefined ? '' : opts.expected === null ? '-' : opts.expected,
    );
    if (Array.isArray(r)) throw new LabelConflictError(parseLabel(String(r[1] ?? '')));
    return r === 1 ? record : undefined;
  }

  /**
   * Takes back this moderator's most recent label in this account: the label it replaced comes back, or the item
   * goes back to pending. Refused ('relabelled') when someone relabelled the item since: nothing changes then.
   */
  async undo(accountId: string, moderatorId: string): Promise<UndoResult> {
    const k = this.keys.forAccount(accountId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.#redis.lindex(k.undo(moderatorId), 0);
      if (entry === null) return { kind: 'nothing' };
      const { submissionId, labelledAt } = parseUndoEntry(entry);
      const [item] = await this.#items(k, [submissionId]);
      const formId = item?.formId ?? '';
      const status = item?.verdict.status ?? 'spam';
      const [code, by] = (await this.#redis.eval(
        UNDO,
        11,
        k.undo(moderatorId),
        k.label(submissionId),
        k.labelled(),
        k.unexported(),
        ...k.pendingAll(formId, status),
        k.item(submissionId),
        k.labelHistory(submissionId),
        k.withdrawals(),
        entry,
        submissionId,
        item === undefined ? 0 : Date.parse(item.receivedAt),
        moderatorId,
        labelledAt,
        item === undefined ? 0 : this.expiresAt(item.receivedAt),
        this.#now(),
      )) as [number, string?];
      if (code === 1 || code === 2) return { kind: 'undone', submissionId };
      // Refuse rather than skip: undoing an older label instead would change something the moderator did not mean to.
      if (code === -1) return { kind: 'relabelled', submissionId, by: by ?? '' };
      // 0: raced with another label of this moderator; -2: item expired; -3: label already gone. Try the next.
    }
    return { kind: 'nothing' };
  }

  /** Every account that has had review items. */
  async accounts(): Promise<string[]> {
    return (await this.#redis.smembers(this.keys.accounts())).sort();
  }

  /** Labels of an account not yet exported, oldest first, with the index score that acknowledges them. */
  async unexported(accountId: string, limit = 1000): Promise<UnexportedLabel[]> {
    const k = this.keys.forAccount(accountId);
    const flat = await this.#redis.zrange(k.unexported(), '0', String(limit - 1), 'WITHSCORES');
    const out: UnexportedLabel[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const submissionId = flat[i] ?? '';
      out.push({ submissionId, score: flat[i + 1] ?? '0', record: await this.getLabel(accountId, submissionId) });
    }
    return out;
  }

  /** Marks labels exported, each only if it is still the item's label (not relabelled since it was read). */
  async acknowledgeExported(accountId: string, entries: readonly UnexportedLabel[]): Promise<number> {
    if (entries.length === 0) return 0;
    const k = this.keys.forAccount(accountId);
    const args = entries.flatMap((e) => [e.submissionId, e.score, e.record?.labelId ?? '']);
    return (await this.#redis.eval(ACK, 1 + entries.length, k.unexported(), ...entries.map((e) => k.label(e.submissionId)), ...args)) as number;
  }

  /** Labels taken back by an undo and not yet handled by an export, oldest undo first. */
  async withdrawals(accountId: string, limit = 1000): Promise<PendingWithdrawal[]> {
    const flat = await this.#redis.zrange(this.keys.forAccount(accountId).withdrawals(), '0', String(limit - 1), 'WITHSCORES');
    const out: PendingWithdrawal[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const member = flat[i] ?? '';
      const parsed = withdrawalEntrySchema.safeParse(parseJson(member));
      out.push({ member, entry: parsed.success ? parsed.data : undefined, withdrawnAt: new Date(Number(flat[i + 1] ?? 0)).toISOString() });
    }
    return out;
  }

  /** Forgets withdrawals the export has written (or found nothing to withdraw for). */
  async acknowledgeWithdrawals(accountId: string, members: readonly string[]): Promise<number> {
    if (members.length === 0) return 0;
    return this.#redis.zrem(this.keys.forAccount(accountId).withdrawals(), ...members);
  }

  /**
   * Erases every key of an account: items, labels, indexes, look-up verdicts, undo histories, withdrawals, and the
   * account from the list of accounts (a GDPR erasure; remove the account from the tenants file first, or new
   * submissions bring it back).
   */
  async eraseAccount(accountId: string): Promise<ErasedAccount> {
    const base = this.keys.forAccount(accountId).base;
    let cursor = '0';
    let items = 0;
    let labels = 0;
    let keys = 0;
    do {
      const [next, found] = await this.#redis.scan(cursor, 'MATCH', `${globEscape(base)}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of found) {
        if (key.startsWith(`${base}:item:`)) items++;
        else if (key.startsWith(`${base}:label:`)) labels++;
      }
      if (found.length > 0) keys += await this.#redis.del(...found);
    } while (cursor !== '0');
    await this.#redis.srem(this.keys.accounts(), accountId);
    return { items, labels, keys };
  }

  /**
   * Erases one submission wherever an account holds it (a GDPR erasure): its item and fields, its label and the
   * labels it replaced, its look-up verdict, its index entries (so no export writes it again) and its withdrawals.
   */
  async eraseSubmission(submissionId: string): Promise<ErasedSubmission[]> {
    const out: ErasedSubmission[] = [];
    for (const accountId of await this.accounts()) {
      const k = this.keys.forAccount(accountId);
      const [item] = await this.#items(k, [submissionId]);
      const [label, history, lookup] = await Promise.all([
        this.#redis.exists(k.label(submissionId)),
        this.#redis.exists(k.labelHistory(submissionId)),
        this.#redis.exists(k.seen(submissionId)),
      ]);
      const withdrawals = (await this.withdrawals(accountId, Number.MAX_SAFE_INTEGER)).filter((w) => w.entry?.submissionId === submissionId);
      if (item === undefined && label + history + lookup === 0 && withdrawals.length === 0) continue;
      const keys = [k.item(submissionId), k.seen(submissionId), k.label(submissionId), k.labelHistory(submissionId), ...(await this.#indexes(accountId)), k.withdrawals()];
      await this.#redis.eval(ERASE, keys.length, ...keys, submissionId, ERASED, ...withdrawals.map((w) => w.member));
      out.push({ submissionId, accountId, item: item !== undefined, label: label === 1, lookup: lookup === 1 });
    }
    return out;
  }

  /**
   * Retention: items and labels expire by themselves (PXAT at receivedAt + retention); this drops index
   * entries that point past retention, for every account. Run at start-up and periodically.
   */
  async sweep(): Promise<number> {
    const cutoff = this.#now() - this.retentionMs;
    let removed = 0;
    for (const accountId of await this.accounts()) {
      for (const index of await this.#indexes(accountId)) removed += await this.#redis.zremrangebyscore(index, '-inf', `(${cutoff}`);
    }
    return removed;
  }

  /** Every index of an account whose members are submissionIds: pending (overall, by status, by form), labelled, unexported. */
  async #indexes(accountId: string): Promise<string[]> {
    const k = this.keys.forAccount(accountId);
    const indexes = [k.pending(), k.pending({ status: 'spam' }), k.pending({ status: 'legitimate' }), k.labelled(), k.unexported()];
    for (const formId of await this.forms(accountId)) {
      indexes.push(k.pending({ formId }), k.pending({ formId, status: 'spam' }), k.pending({ formId, status: 'legitimate' }));
    }
    return indexes;
  }

  async #items(k: AccountKeys, ids: readonly string[]): Promise<(ReviewJob | undefined)[]> {
    if (ids.length === 0) return [];
    const raws = await this.#redis.mget(...ids.map((id) => k.item(id)));
    return raws.map((raw) => {
      if (raw === null) return undefined;
      const parsed = reviewJobSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    });
  }
}

/** A literal for SCAN MATCH: the glob characters of a prefix or account id match only themselves. */
function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
