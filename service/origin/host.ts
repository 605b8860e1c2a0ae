import { domainToASCII } from 'node:url';

/** A request's or an entry's host, normalized: lowercase ASCII, no trailing dot; port '' when unnamed. */
export interface HostPort {
  readonly host: string;
  readonly port: string;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

/** Lowercases, IDN → punycode, drops one trailing dot; '' when the host is not a valid name or address. */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h.startsWith('[')) return /^\[[0-9a-f:.]+\]$/.test(h) ? h : '';
  if (!/^[\x21-\x7e]*$/.test(h)) h = domainToASCII(h);
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(h) ? h : '';
}

/**
 * A host already accepted by normalizeHost, read the way the WHATWG URL parser reads a request's Origin host:
 * "[0:0:0:0:0:0:0:1]" becomes "[::1]", "127.000.000.001" becomes "127.0.0.1". '' when the parser cannot read it
 * ("[:::1]", "example.123"), as such a host can never arrive in an Origin or Referer header.
 */
export function canonicalHost(normalized: string): string {
  let url: URL;
  try {
    // Safe to splice: normalizeHost let through only [a-z0-9_.-] or a bracketed [0-9a-f:.], so no port, path or userinfo.
    url = new URL(`http://${normalized}`);
  } catch {
    return '';
  }
  return normalizeHost(url.hostname);
}

/** Host and effective port of an absolute URL (Origin or Referer value); undefined when unusable. */
export function hostOfUrl(value: string): HostPort | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const host = normalizeHost(url.hostname);
  if (host === '') return undefined;
  return { host, port: url.port || DEFAULT_PORTS[url.protocol] || '' };
}

/** "host" or "host:port" when the port is not a default one, as people write it. */
export function formatHostPort(o: HostPort): string {
  return o.port === '' || o.port === '80' || o.port === '443' ? o.host : `${o.host}:${o.port}`;
}
