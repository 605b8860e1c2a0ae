const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * YouTube exported comments with HTML entities and <br /> tags; a person typed the decoded text.
 * Link markup (<a href>) is kept: it is what the comment carried and what link-dropping spam looks like.
 */
export function decodeHtmlText(s: string): string {
  return s
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (m, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith('#x')) return safeCodePoint(parseInt(lower.slice(2), 16)) ?? m;
      if (lower.startsWith('#')) return safeCodePoint(parseInt(lower.slice(1), 10)) ?? m;
      return ENTITIES[lower] ?? m;
    });
}

function safeCodePoint(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}
