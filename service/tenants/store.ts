import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Tenants } from './compile.ts';
import { loadTenantsFile } from './load.ts';

/** What the app reads tenants through: always the last good configuration. */
export interface TenantsSource {
  readonly current: Tenants;
}

export type ReloadResult =
  { readonly kind: 'reloaded' } | { readonly kind: 'unchanged' } | { readonly kind: 'rejected'; readonly reason: string };

/**
 * Why an edit that leaves no account, or no API key, is refused: every client would get 401 (and soon 429 from the
 * failed-key guard), which is far likelier a truncated write or a wrong file than an intent. To stop serving, stop
 * the service; to take one account's access away, remove that account or its keys.
 */
export function emptiedReason(t: Tenants): string | undefined {
  if (t.accounts.size === 0) return 'the edit leaves no accounts, so every API key would be refused; refused as a mistake';
  if (t.keys.size === 0) return 'the edit leaves no API keys, so every request would be refused; refused as a mistake';
  return undefined;
}

/** Holds the tenants file's last good state and follows edits to it. */
export class TenantsStore implements TenantsSource {
  #current: Tenants;
  #text: string;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The last reload was rejected: the log's last word on the file is an error until a good read says otherwise. */
  #rejected = false;
  readonly #listeners = new Set<(t: Tenants) => void>();

  private constructor(
    readonly file: string,
    loaded: { tenants: Tenants; text: string },
    private readonly log: Logger,
  ) {
    this.#current = loaded.tenants;
    this.#text = loaded.text;
  }

  /** Loads the file; an invalid file throws a TenantsError naming the place, which stops start-up. */
  static async open(file: string, log: Logger): Promise<TenantsStore> {
    const loaded = await loadTenantsFile(file);
    // At start-up there is no earlier configuration to keep (and a console-only set-up has no keys yet): say it loudly.
    const emptied = emptiedReason(loaded.tenants);
    if (emptied !== undefined) log.error({ tenantsFile: file, reason: emptied }, 'tenants file: every verify request will be refused');
    return new TenantsStore(file, loaded, log);
  }

  get current(): Tenants {
    return this.#current;
  }

  onChange(listener: (t: Tenants) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async reload(): Promise<ReloadResult> {
    let loaded: { tenants: Tenants; text: string };
    try {
      loaded = await loadTenantsFile(this.file);
      const emptied = emptiedReason(loaded.tenants);
      if (emptied !== undefined) throw new Error(`${this.file}: ${emptied}`);
    } catch (err) {
      const reason = (err as Error).message;
      // reason is the loader's message: places and kinds of errors, never the file's text (keys may be pasted there).
      this.log.error({ tenantsFile: this.file, reason }, 'tenants file edit rejected; keeping the last good configuration');
      this.#rejected = true;
      return { kind: 'rejected', reason };
    }
    const recovered = this.#rejected;
    this.#rejected = false;
    if (loaded.text === this.#text) {
      // The last good content is back (an undone edit): say so, or the rejection would stay the log's last word.
      if (recovered) this.log.info({ tenantsFile: this.file }, 'tenants file is valid again; keeping the current configuration');
      return { kind: 'unchanged' };
    }
    this.#current = loaded.tenants;
    this.#text = loaded.text;
    const t = loaded.tenants;
    this.log.info({ tenantsFile: this.file, accounts: t.accounts.size, forms: t.forms.size, keys: t.keys.size }, 'tenants file reloaded');
    for (const listener of this.#listeners) listener(t);
    return { kind: 'reloaded' };
  }

  /**
   * Watches the directory, not the file: editors and the CLI replace the file by renaming over it. Every change in
   * the folder triggers a (debounced) read, not only one named like the file: a Kubernetes ConfigMap or Secret
   * volume updates the file by swapping the `..data` symlink the file's own symlink goes through, so no event ever
   * names the file. A read that finds the content in use changes nothing and logs nothing.
   */
  watch(debounceMs = 150): void {
    if (this.#watcher !== undefined) return;
    this.#watcher = watch(path.dirname(this.file), { persistent: false }, () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.reload(), debounceMs);
    });
    this.#watcher.on('error', (err) => this.log.warn({ err, tenantsFile: this.file }, 'tenants file watcher failed; edits need a restart'));
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}
