/** RFC 4180 CSV: every field quoted, quotes doubled. */
export function stringify(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map((v) => `"${v.replaceAll('"', '""')}"`).join(',')).join('\r\n') + '\r\n';
}
