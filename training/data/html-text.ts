const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * YouTube exported comments as its rendered HTML: entities, <br /> for line breaks, and tags around what the
 * commenter typed: an <a href> around every link, timestamp ("3:40") and hashtag, a <span> around a "+name"
 * mention, <b> for *bold*. YouTube made every tag (a "<" the commenter typed is escaped, &lt;), so each tag goes and
 * its text stays: a typed link still counts as a link, but it, a timestamp or a hashtag never reads as HTML link
 * markup, a strong sign of spam in a form, and escaped markup a commenter typed survives as markup.
 */
export function decodeHtmlText(s: string): string {
  return s
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?[a-z][^<>]*>/gi, '')
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
