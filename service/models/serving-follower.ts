import type { Logger } from 'pino';
import { listModelVersions, loadServable } from '../../core/classifier/load.ts';
import { chooseServing, parseServingRecord, readServingText, servingFile, type ServingChoice, type ServingRecord } from '../../core/classifier/serving-record.ts';
import type { Classifier } from '../../core/classifier/types.ts';
import { ModelSlot } from '../verify/model-slot.ts';

export interface FollowerOptions {
  readonly modelsDir: string;
  /** MODEL_VERSION: serves this version whatever the record says (the record's shadow still applies). */
  readonly pinned?: string | undefined;
  readonly log: Logger;
  /** How often the record is read; a change serves within about this plus a model load. */
  readonly pollMs?: number;
  /** How long after a failed load the same record is tried again (the folder may still have been copying). */
  readonly retryMs?: number;
  readonly load?: (modelsDir: string, version: string) => Promise<Classifier>;
}

export type ServingEvent =
  | { readonly kind: 'changed'; readonly active: string; readonly shadow: string | null }
  | { readonly kind: 'load-failed'; readonly version: string; readonly reason: string };

/**
 * Follows models/serving.json: every instance sharing MODELS_DIR reads it every `pollMs` and, when what it names
 * changes, loads and warms the new version beside the one serving, then swaps it in. A version that cannot be loaded
 * leaves the current one serving and is listed as a problem.
 */
export class ServingFollower {
  readonly slot: ModelSlot;
  readonly #o: FollowerOptions;
  readonly #load: (modelsDir: string, version: string) => Promise<Classifier>;
  readonly #listeners = new Set<(e: ServingEvent) => void>();
  /** The last two models served, so a rollback swaps without reading the disk. */
  readonly #recent = new Map<string, Classifier>();
  #timer: NodeJS.Timeout | undefined;
  #lastText: string | undefined;
  #retryAt = Infinity;
  #checking: Promise<void> | undefined;
  #initialShadow: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: FollowerOptions) {
    this.#o = options;
    this.#load = options.load ?? loadServable;
    this.slot = new ModelSlot(this.#initial());
    this.slot.loaded.then(
      () => {
        if (this.#stopped) return;
        this.#timer = setInterval(() => void this.check(), options.pollMs ?? 1000);
        this.#timer.unref();
      },
      () => undefined,
    );
  }

  onEvent(listener: (e: ServingEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /** Reads the record and applies a change; concurrent calls share one check. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #initial(): Promise<Classifier> {
    const { modelsDir, pinned, log } = this.#o;
    // A record that cannot be read stops start-up, as a bad tenants file does: serving the newest folder instead
    // could put an unpromoted candidate in front of users.
    const text = await readServingText(modelsDir);
    this.#lastText = text;
    const record = text === undefined ? undefined : parseServingRecord(text, servingFile(modelsDir));
    const choice = chooseServing(record, await listModelVersions(modelsDir), pinned);
    if (pinned !== undefined) log.info({ modelVersion: pinned, recordActive: record?.active ?? null }, `MODEL_VERSION pins the served model; the active version in ${servingFile(modelsDir)} is not followed`);
    else log.info({ modelVersion: choice.active, source: choice.source }, choice.source === 'record' ? 'serving the active model of the serving record' : 'no serving record: serving the newest model');
    let active: Classifier;
    try {
      active = await this.#loadOne(choice.active);
    } catch (err) {
      // Nothing serves yet: the version it replaced is the one known to have served.
      if (choice.source !== 'record' || choice.previous === null) throw err;
      this.slot.reportProblem(choice.active, loadProblem(choice.active, (err as Error).message));
      this.#retryAt = Date.now() + (this.#o.retryMs ?? 30_000);
      log.error({ err, modelVersion: choice.active, fallback: choice.previous }, 'the active model cannot be loaded; serving the previous one');
      active = await this.#loadOne(choice.previous);
    }
    this.#remember(active);
    this.slot.activate(active);
    this.#emit({ kind: 'changed', active: active.modelVersion, shadow: null });
    // The shadow loads after the active model: readiness never waits for it.
    if (choice.shadow !== null) this.#initialShadow = this.#applyShadow(choice).then(() => this.#emit({ kind: 'changed', active: active.modelVersion, shadow: this.slot.shadow?.modelVersion ?? null }));
    return active;
  }

  async #check(): Promise<void> {
    await this.#initialShadow;
    if (this.#stopped) return;
    let text: string | undefined;
    try {
      text = await readServingText(this.#o.modelsDir);
    } catch (err) {
      this.#o.log.warn({ err }, 'cannot read the serving record; keeping the current models');
      return;
    }
    if (text === this.#lastText && Date.now() < this.#retryAt) return;
    this.#lastText = text;
    this.#retryAt = Infinity;
    const record = this.#parse(text);
    if (text !== undefined && record === undefined) return; // unreadable record: said by #parse, nothing changes
    let choice: ServingChoice;
    try {
      choice = chooseServing(record, await listModelVersions(this.#o.modelsDir), this.#o.pinned);
    } catch (err) {
      this.#o.log.error({ err }, 'no model to serve in the folder; keeping the current one');
      return;
    }
    const before = { active: this.slot.classifier?.modelVersion, shadow: this.slot.shadow?.modelVersion ?? null };
    await Promise.all([this.#applyActive(choice.active), this.#applyShadow(choice)]);
    this.slot.retainProblems(new Set([SERVING_RECORD, choice.active, ...(choice.shadow === null ? [] : [choice.shadow])]));
    const after = { active: this.slot.classifier?.modelVersion, shadow: this.slot.shadow?.modelVersion ?? null };
    if (after.active !== undefined && (after.active !== before.active || after.shadow !== before.shadow)) this.#emit({ kind: 'changed', active: after.active, shadow: after.shadow });
  }

  #parse(text: string | undefined): ServingRecord | undefined {
    if (text === undefined) return undefined;
    try {
      const record = parseServingRecord(text, servingFile(this.#o.modelsDir));
      this.slot.clearProblem(SERVING_RECORD);
      return record;
    } catch (err) {
      this.#o.log.error({ err }, 'the serving record is invalid; keeping the current models');
      this.slot.reportProblem(SERVING_RECORD, (err as Error).message);
      return undefined;
    }
  }

  async #applyActive(version: string): Promise<void> {
    if (this.slot.classifier?.modelVersion === version) return;
    const from = this.slot.classifier?.modelVersion;
    const next = await this.#loadOrReport(version);
    if (next === undefined) return;
    this.slot.activate(next);
    this.#remember(next);
    this.#o.log.info({ modelVersion: version, from }, 'model switched');
  }

  async #applyShadow(choice: ServingChoice): Promise<void> {
    const want = choice.shadow;
    if (want === null || want === choice.active) {
      if (this.slot.shadow !== undefined) this.#o.log.info({ shadowVersion: this.slot.shadow.modelVersion }, 'shadow scoring off');
      this.slot.setShadow(undefined);
      return;
    }
    if (this.slot.shadow?.modelVersion === want) return;
    const shadow = await this.#loadOrReport(want);
    if (shadow === undefined) return;
    this.slot.setShadow(shadow);
    this.#o.log.info({ shadowVersion: want }, 'shadow model loaded; scoring a sample of traffic with it');
  }

  async #loadOrReport(version: string): Promise<Classifier | undefined> {
    try {
      const c = this.#recent.get(version) ?? (await this.#loadOne(version));
      this.slot.clearProblem(version);
      return c;
    } catch (err) {
      const reason = (err as Error).message;
      this.slot.reportProblem(version, loadProblem(version, reason));
      this.#retryAt = Date.now() + (this.#o.retryMs ?? 30_000);
      this.#o.log.error({ modelVersion: version, reason }, 'model cannot be loaded; the current one keeps serving');
      this.#emit({ kind: 'load-failed', version, reason });
      return undefined;
    }
  }

  #loadOne(version: string): Promise<Classifier> {
    return this.#load(this.#o.modelsDir, version);
  }

  #remember(c: Classifier): void {
    this.#recent.delete(c.modelVersion);
    this.#recent.set(c.modelVersion, c);
    while (this.#recent.size > 2) this.#recent.delete(this.#recent.keys().next().value as string);
  }

  #emit(e: ServingEvent): void {
    for (const l of this.#listeners) l(e);
  }
}

/** The problem key of an invalid record (problems are otherwise keyed by version). */
const SERVING_RECORD = 'serving.json';

function loadProblem(version: string, reason: string): string {
  return `model ${version} cannot be loaded, the current one keeps serving: ${reason}`;
}
