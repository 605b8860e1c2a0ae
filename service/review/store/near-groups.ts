import type { ReviewJob } from '../intake/job-schema.ts';
import { MIN_SHARED, nearPrintOfWords } from '../text/near-print.ts';
import type { StoreContext } from './context.ts';
import type { AccountKeys } from './keys.ts';

/** A leader registered this recently counts while its own ingest is still on its way (two workers, one flood). */
const ON_ITS_WAY_MS = 10_000;
/** Example members a list row carries. */
export const GROUP_EXAMPLES = 3;

/** The account's near-duplicate keys (all under its base, so in its Cluster slot). */
export function nearKeys(k: AccountKeys) {
  return {
    bands: `${k.base}:near:bands`,
    leaders: `${k.base}:near:leaders`,
    signatures: `${k.base}:near:sig`,
    members: `${k.base}:near:members`,
    leaderOf: `${k.base}:near:of`,
    group: (leader: string) => `${k.base}:near:group:${leader}`,
  };
}

/** What an ingest reads of a submission once, for the grouping script and ingest.lua alike. */
export interface IngestRead {
  readonly receivedAt: number;
  /** Its searchWords (text/words.ts). */
  readonly words: readonly string[];
  /** Its exact fingerprint (fingerprint.ts): identical submissions share it. */
  readonly exact: string;
  /** Its line in the account's search hash (search-line.ts). */
  readonly line: string;
}

/** A group as a list row shows it: its size (the leader included) and a few of its other members. */
export interface GroupSummary {
  readonly size: number;
  readonly exampleIds: readonly string[];
}

/**
 * Similar submissions as one group (a campaign by similarity): grouped as they arrive (near-ingest.lua), shown as
 * the leader's one row, labelled and undone as one. Exact duplicates stay ingest.lua's campaigns (merged into one
 * item, not stored); a group's members are items of their own, so each is exported with its own label.
 */
export class NearGroups {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * What near-ingest.lua needs to group this submission with a similar pending item's, or to register it as a leader
   * (ingest-batch.lua runs it before ingest.lua): its 8 keys and its arguments without the item's JSON (ARGV[3]).
   * Undefined when grouping is off or the submission has too few words for a near print (then only ingest.lua runs).
   * `read` is what the ingest read of it once for both scripts: its search words, exact fingerprint and search line.
   */
  plan(job: ReviewJob, read: IngestRead): { keys: string[]; args: Array<string | number> } | undefined {
    if (this.ctx.campaignWindowMs <= 0 || this.ctx.nearMembersMax <= 0) return undefined;
    const print = nearPrintOfWords(job.formId, read.words);
    if (print === undefined) return undefined;
    const k = this.ctx.keys.forAccount(job.accountId);
    const n = nearKeys(k);
    return {
      keys: [n.bands, n.leaders, n.signatures, n.members, n.leaderOf, k.item(job.submissionId), k.search(), k.fingerprint(read.exact)],
      args: [
        k.base,
        job.submissionId,
        read.receivedAt,
        this.ctx.expiresAt(job.receivedAt),
        this.ctx.now(),
        this.ctx.campaignWindowMs,
        print.signature,
        read.line,
        this.ctx.nearGroupsMax,
        this.ctx.nearMembersMax,
        this.ctx.retentionMs,
        MIN_SHARED,
        ON_ITS_WAY_MS,
        ...print.bands,
      ],
    };
  }

  /** Each id's group as a row shows it (size 1, no examples, for an item that leads none): one pipeline. */
  async summaries(k: AccountKeys, ids: readonly string[]): Promise<GroupSummary[]> {
    if (ids.length === 0) return [];
    const n = nearKeys(k);
    const p = this.ctx.redis.pipeline();
    for (const id of ids) p.zcard(n.group(id)).zrange(n.group(id), '0', String(GROUP_EXAMPLES - 1));
    const r = (await p.exec()) ?? [];
    return ids.map((_, i) => {
      const [errCard, card] = r[2 * i] ?? [null, 0];
      const [errIds, exampleIds] = r[2 * i + 1] ?? [null, []];
      if (errCard || errIds) return { size: 1, exampleIds: [] };
      return { size: Number(card) + 1, exampleIds: exampleIds as string[] };
    });
  }

  /** One item's group with its example items (size 1, none, for an item that leads none). */
  async group(accountId: string, id: string): Promise<{ size: number; examples: ReviewJob[] }> {
    const k = this.ctx.keys.forAccount(accountId);
    const [summary] = await this.summaries(k, [id]);
    if (summary === undefined || summary.exampleIds.length === 0) return { size: summary?.size ?? 1, examples: [] };
    const items = await this.ctx.items(k, summary.exampleIds);
    return { size: summary.size, examples: items.filter((x): x is ReviewJob => x !== undefined) };
  }

  /** The members of the groups these ids lead, after each leader (an id leading none stands for itself); deduplicated. */
  async expand(accountId: string, ids: readonly string[]): Promise<string[]> {
    const n = nearKeys(this.ctx.keys.forAccount(accountId));
    const p = this.ctx.redis.pipeline();
    for (const id of ids) p.zrange(n.group(id), '0', '-1');
    const r = (await p.exec()) ?? [];
    const out = new Set<string>();
    ids.forEach((id, i) => {
      out.add(id);
      const [err, members] = r[i] ?? [null, []];
      if (!err) for (const m of members as string[]) out.add(m);
    });
    return [...out];
  }

  /**
   * Which of these ids are members of a pending item's group: an undo puts them back in the group (its row), not in
   * the list as rows of their own. `returning`: items going back to pending in the same undo (a group's leader).
   */
  async grouped(k: AccountKeys, ids: readonly string[], returning: ReadonlySet<string> = new Set()): Promise<boolean[]> {
    if (ids.length === 0) return [];
    const leaders = await this.ctx.redis.hmget(nearKeys(k).leaderOf, ...ids);
    const named = leaders.map((l, i) => (l !== null && l !== undefined && l !== ids[i] ? l : undefined));
    const asked = [...new Set(named.filter((l): l is string => l !== undefined))];
    if (asked.length === 0) return ids.map(() => false);
    const scores = await this.ctx.redis.zmscore(k.pending(), ...asked);
    const pending = new Set(asked.filter((l, i) => returning.has(l) || (scores[i] !== null && scores[i] !== undefined)));
    return named.map((l) => l !== undefined && pending.has(l));
  }
}
