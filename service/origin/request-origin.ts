import type { IncomingHttpHeaders } from 'node:http';
import { formatHostPort, hostOfUrl, type HostPort } from './host.ts';

/** Where a request says it comes from; `reasonHost` phrases it for the blocked body. */
export type RequestOrigin =
  | { readonly kind: 'host'; readonly origin: HostPort; readonly header: 'origin' | 'referer' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unusable'; readonly header: 'origin' | 'referer'; readonly raw: string };

/** Origin wins over Referer; "Origin: null" is unusable rather than a reason to fall back to Referer. */
export function requestOrigin(headers: IncomingHttpHeaders): RequestOrigin {
  const origin = headers.origin;
  if (origin !== undefined) return origin.length <= 256 ? originFromCache(origin) : fromValue(origin, 'origin');
  const referer = headers.referer;
  if (referer !== undefined) return fromValue(referer, 'referer');
  return { kind: 'missing' };
}

// Origin values are few per deployment (scheme://host[:port]), so their parse (new URL + host checks, ~1.5 µs on
// every verify request) is cached. Bounded (≤ 1024 values of ≤ 256 chars, cleared when full), so odd values cannot
// grow memory. Referer values carry paths (unbounded variety) and are parsed each time. Results are immutable.
const ORIGIN_CACHE_MAX = 1024;
const originCache = new Map<string, RequestOrigin>();

function originFromCache(raw: string): RequestOrigin {
  let o = originCache.get(raw);
  if (o === undefined) {
    if (originCache.size >= ORIGIN_CACHE_MAX) originCache.clear();
    o = fromValue(raw, 'origin');
    originCache.set(raw, o);
  }
  return o;
}

function fromValue(raw: string, header: 'origin' | 'referer'): RequestOrigin {
  const origin = hostOfUrl(raw);
  return origin === undefined ? { kind: 'unusable', header, raw } : { kind: 'host', origin, header };
}

export function blockedReason(o: RequestOrigin): string {
  switch (o.kind) {
    case 'host':
      return `Referrer domain "${formatHostPort(o.origin)}" is not allowed for this form`;
    case 'missing':
      return 'Referrer domain is not allowed: the request has no Origin or Referer header';
    case 'unusable':
      // Cut and quote the caller's own header so the answer stays small and readable.
      return `Referrer domain is not allowed: the ${o.header === 'origin' ? 'Origin' : 'Referer'} header ${JSON.stringify(o.raw.slice(0, 100))} names no usable host`;
  }
}

export function originHostOf(o: RequestOrigin): HostPort | undefined {
  return o.kind === 'host' ? o.origin : undefined;
}
