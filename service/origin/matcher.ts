import { normalizeHost, type HostPort } from './host.ts';

/** Decides, for one form, whether a request host may use it; built once when the tenants file loads. */
export type OriginMatcher = (origin: HostPort | undefined) => boolean;

interface Entry {
  readonly wildcard: boolean;
  /** Exact host, or for a wildcard the suffix including its leading dot (".example.org"). */
  readonly host: string;
  /** '' means any port. */
  readonly port: string;
}

function parseEntry(raw: string): Entry | undefined {
  if (raw === '*' || raw.length > 300) return undefined;
  let rest = raw;
  let wildcard = false;
  if (rest.startsWith('*.')) {
    wildcard = true;
    rest = rest.slice(2);
  }
  let port = '';
  const colon = rest.lastIndexOf(':');
  // A colon after "]" (IPv6) or anywhere in a name separates the port.
  if (colon !== -1 && (!rest.startsWith('[') || rest.lastIndexOf(']') < colon)) {
    port = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return undefined;
    port = String(Number(port));
  }
  const host = normalizeHost(rest);
  if (host === '' || (wildcard && host.startsWith('['))) return undefined;
  return { wildcard, host: wildcard ? `.${host}` : host, port };
}

export function isValidReferrerEntry(raw: string): boolean {
  return raw === '*' || parseEntry(raw) !== undefined;
}

/** Compiles a form's allowedReferrers: exact hosts in a Map, wildcards as suffixes, "*" as allow-all. */
export function compileOriginMatcher(entries: readonly string[]): OriginMatcher {
  if (entries.includes('*')) return () => true;
  const exact = new Map<string, string[]>();
  const suffixes: Entry[] = [];
  for (const raw of entries) {
    const entry = parseEntry(raw);
    if (entry === undefined) throw new Error(`invalid referrer entry "${raw}"`);
    if (entry.wildcard) suffixes.push(entry);
    else exact.set(entry.host, [...(exact.get(entry.host) ?? []), entry.port]);
  }
  const portOk = (want: string, got: string) => want === '' || want === got;
  return (origin) => {
    if (origin === undefined) return false;
    const ports = exact.get(origin.host);
    if (ports !== undefined && ports.some((p) => portOk(p, origin.port))) return true;
    for (const s of suffixes) {
      if (origin.host.length > s.host.length && origin.host.endsWith(s.host) && portOk(s.port, origin.port)) return true;
    }
    return false;
  };
}
