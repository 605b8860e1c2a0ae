import { canonicalHost, normalizeHost, type HostPort } from './host.ts';

/** Decides, for one form, whether a request host may use it; built once when the tenants file loads. */
export type OriginMatcher = (origin: HostPort | undefined) => boolean;

interface Entry {
  readonly wildcard: boolean;
  /** Exact host, or for a wildcard the suffix including its leading dot (".example.org"). */
  readonly host: string;
  /** '' means any port. */
  readonly port: string;
}

const SHAPE = 'must be "*", "host", "host:port" or "*.domain" (no scheme, no path)';

/** The entry compiled, or why it is refused (the message names the entry: referrer lists are not secret). */
function parseEntry(raw: string): Entry | string {
  const q = JSON.stringify;
  if (raw.length > 300) return `${q(raw.slice(0, 40))}… is longer than 300 characters`;
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
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return `${q(raw)} ${SHAPE}`;
    port = String(Number(port));
  }
  const written = normalizeHost(rest);
  if (written === '' || (wildcard && written.startsWith('['))) return `${q(raw)} ${SHAPE}`;
  if (!wildcard) {
    // Compared with the request's host as the URL parser wrote it, so "[0:0:0:0:0:0:0:1]" must become "[::1]" too.
    const host = canonicalHost(written);
    if (host === '') return `${q(raw)} is not a host name or IP address the URL parser can read, so no request would ever match it`;
    return { wildcard, host, port };
  }
  // A wildcard stands for hosts under it, so one of those is what the URL parser must read ("*.127.0.0.1" has none).
  const under = canonicalHost(`x.${written}`);
  if (!under.startsWith('x.'))
    return `${q(raw)}: the URL parser cannot read a host under it, so no request would ever match it (a wildcard needs a domain name)`;
  return { wildcard, host: under.slice(1), port };
}

/** Why a referrer entry is refused, or undefined when it is fine. */
export function referrerEntryProblem(raw: string): string | undefined {
  if (raw === '*') return undefined;
  const parsed = parseEntry(raw);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** Compiles a form's allowedReferrers: exact hosts in a Map, wildcards as suffixes, "*" as allow-all. */
export function compileOriginMatcher(entries: readonly string[]): OriginMatcher {
  if (entries.includes('*')) return () => true;
  const exact = new Map<string, string[]>();
  const suffixes: Entry[] = [];
  for (const raw of entries) {
    const entry = parseEntry(raw);
    if (typeof entry === 'string') throw new Error(`invalid referrer entry ${entry}`);
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
